import { Command } from "commander";
import { VERSION } from "../core/index.js";
import { COMMANDS } from "./commands/index.js";

/** Builds the `keel` program with every verb group mounted. */
export function buildProgram(): Command {
  const program = new Command("keel")
    .description("Keel: governed, durable agent workflows on SQLite or Postgres.")
    .version(VERSION, "-V, --version", "print the version")
    .showHelpAfterError()
    .exitOverride();
  for (const module of COMMANDS) module.register(program);
  return program;
}

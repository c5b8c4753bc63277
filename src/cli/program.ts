import { Command } from "commander";
import { llmNodeKind } from "../agents/ir/index.js";
import { VERSION } from "../core/index.js";
import { registerNodeKinds, registerStoreProviders } from "../ir/index.js";
import { memoryContextKind, memoryStoreProvider } from "../memory/index.js";
import { COMMANDS } from "./commands/index.js";

/** Builds the `keel` program with every verb group mounted. */
export function buildProgram(): Command {
  // Documents run by the CLI may use the agents' `llm` node kind (LangChain loads when one runs).
  registerNodeKinds({ llm: llmNodeKind(), memory_context: memoryContextKind() });
  // An IR document's `stores` may bind the decision memory of the run's kernel database.
  registerStoreProviders({ "keel.memory": memoryStoreProvider() });
  const program = new Command("keel")
    .description("Keel: governed, durable agent workflows on SQLite or Postgres.")
    .version(VERSION, "-V, --version", "print the version")
    .showHelpAfterError()
    .exitOverride();
  for (const module of COMMANDS) module.register(program);
  return program;
}

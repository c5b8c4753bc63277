import type { Command } from "commander";
import { buildProgram } from "../../src/cli/program.js";

// The in-process runner lives in test/support/cli.ts; re-exported for the suites that import it here.
export { type KeelRun, keelInProcess } from "../support/cli.js";

/** The backquoted commands in a remedy that start with `keel `. */
export function keelCommandsIn(remedy: string | null | undefined): string[] {
  return [...(remedy ?? "").matchAll(/`([^`]+)`/g)]
    .map((m) => m[1] ?? "")
    .filter((command) => command.startsWith("keel "));
}

/**
 * Problems with a `keel …` command as a remedy writes it: a verb the program does not have, or
 * an option its verb does not take. Placeholders (`<backup>`) stand for arguments.
 */
export function unknownKeelCommandParts(command: string): string[] {
  const words = command.split(/\s+/).slice(1);
  let at: Command = buildProgram();
  const problems: string[] = [];
  let index = 0;
  for (; index < words.length; index++) {
    const word = words[index] ?? "";
    const sub = at.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    at = sub;
  }
  if (at.commands.length > 0) problems.push(`"${command}": "${at.name()}" needs a subcommand`);
  for (const word of words.slice(index)) {
    if (!word.startsWith("-")) continue;
    const flag = word.split("=")[0] ?? word;
    if (!at.options.some((o) => o.long === flag || o.short === flag)) {
      problems.push(`"${command}": ${at.name()} has no option ${flag}`);
    }
  }
  return problems;
}

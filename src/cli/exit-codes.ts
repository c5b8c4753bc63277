import type { Command } from "commander";

const declared = new WeakMap<Command, readonly number[]>();

/**
 * Records the exit codes a verb can end with, for `keel help --format json|md`. Verbs that
 * declare none are listed with 0 and 2 (ok, operational error).
 */
export function declareExitCodes(command: Command, codes: readonly number[]): Command {
  declared.set(command, codes);
  return command;
}

/** The exit codes of a verb (declared, or the default 0 and 2). */
export function exitCodesOf(command: Command): readonly number[] {
  return declared.get(command) ?? [0, 2];
}

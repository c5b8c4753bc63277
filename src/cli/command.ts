import type { Command } from "commander";

/**
 * One CLI verb group. Each file in `commands/` exports one of these; `program.ts` mounts them.
 * Verbs stay thin: they parse options, call a service, and print through `output.ts`.
 */
export interface CliModule {
  register(program: Command): void;
}

import { CommanderError } from "commander";
import { exitQuietlyOnBrokenPipe } from "./broken-pipe.js";
import { buildProgram } from "./program.js";

/** Runs the CLI with `argv` (as in process.argv) and resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  exitQuietlyOnBrokenPipe(process.stdout);
  exitQuietlyOnBrokenPipe(process.stderr);
  const program = buildProgram();
  // `keel` alone prints the top-level help and succeeds (the CLI contract's rule for `sm`).
  if (argv.length <= 2) {
    process.stdout.write(program.helpInformation());
    return 0;
  }
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; a usage error is an operational error (2).
      return error.exitCode === 0 ? 0 : 2;
    }
    throw error;
  }
  return typeof process.exitCode === "number" ? process.exitCode : 0;
}

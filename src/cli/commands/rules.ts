import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import { runBatch } from "../../rules/index.js";
import type { CliModule } from "../command.js";
import { type OutputOptions, reportError } from "../output.js";
import { stdinChunks } from "../stdin-chunks.js";

/** `keel rules run <file.clp>`: runs a CLIPS program and prints what `clips -f2` prints. */
export const rulesCommands: CliModule = {
  register(program: Command): void {
    const rules = program.command("rules").description("The CLIPS-compatible rule engine.");

    rules
      .command("run <file>")
      .description(
        "Run a .clp file's top-level forms like `clips -f2 <file>`; --json prints firings and final facts.",
      )
      .option("--json", "print the firings and the final facts as JSON")
      .option(
        "--transcript",
        "print exactly what `clips -f2` prints, with its banner and prompt when the file has no (exit)",
      )
      .action(async (file: string, options: OutputOptions & { transcript?: boolean }) => {
        try {
          let source: string;
          try {
            source = await readFile(file, "utf8");
          } catch (cause) {
            throw new KeelError("NOT_FOUND", `Cannot read ${file}.`, {
              cause,
              hint: "Check the path to the .clp file.",
            });
          }
          // Standard input reaches read/readline as with `clips -f2`; the transcript is written as
          // it is printed, so a prompt shows before the program waits for its answer.
          const result = runBatch(source, {
            input: stdinChunks(),
            banner: options.transcript === true,
            ...(options.json ? {} : { onOutput: (text: string) => process.stdout.write(text) }),
          });
          if (options.json) {
            process.stdout.write(
              `${JSON.stringify({
                ok: !result.error,
                firings: result.firings,
                facts: result.facts,
                ...(result.error ? { error: result.error.toJSON().error } : {}),
              })}\n`,
            );
            if (result.error) process.exitCode = result.error.exitCode;
            return;
          }
          if (result.error) reportError({}, result.error);
        } catch (error) {
          reportError(options, error);
        }
      });
  },
};

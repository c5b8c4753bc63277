import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import type { CliModule } from "../command.js";
import { declareExitCodes } from "../exit-codes.js";
import { cliMarkdown, cliSurface, type VerbSurface } from "../help-surface.js";
import { reportError } from "../output.js";

function findVerb(
  program: Command,
  words: readonly string[],
): { command: Command; path: string[] } {
  let command = program;
  const path: string[] = [];
  for (const word of words) {
    const next = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      throw new KeelError("NOT_FOUND", `There is no verb "${[...path, word].join(" ")}".`, {
        hint: "`keel help` lists the verbs.",
      });
    }
    command = next;
    path.push(word);
  }
  return { command, path };
}

function findSurface(
  verbs: readonly VerbSurface[],
  path: readonly string[],
): VerbSurface | undefined {
  let list = verbs;
  let found: VerbSurface | undefined;
  for (const word of path) {
    found = list.find((v) => v.name === word);
    if (!found) return undefined;
    list = found.subcommands;
  }
  return found;
}

/** `keel help [verb…] --format human|md|json`: the CLI described from its own definitions. */
export const helpCommands: CliModule = {
  register(program: Command): void {
    program.helpCommand(false);
    const help = program
      .command("help")
      .description(
        "Describe the CLI or one verb (human, md or json), generated from the CLI's own definitions.",
      )
      .argument("[verb...]", "a verb (and subcommand) to describe")
      .option("--format <format>", "human, md or json", "human")
      .action((words: string[], flags: { format: string }) => {
        try {
          if (!["human", "md", "json"].includes(flags.format)) {
            throw new KeelError(
              "INVALID_ARGUMENT",
              `--format must be human, md or json, not "${flags.format}".`,
            );
          }
          const { command, path } = findVerb(program, words);
          const surface = cliSurface(program);
          const verb = path.length ? findSurface(surface.verbs, path) : undefined;
          if (flags.format === "json") {
            process.stdout.write(`${JSON.stringify(verb ?? surface, null, 2)}\n`);
          } else if (flags.format === "md") {
            process.stdout.write(cliMarkdown(surface, verb));
          } else {
            process.stdout.write(command.helpInformation());
          }
        } catch (error) {
          reportError({ json: flags.format === "json" }, error);
        }
      });
    declareExitCodes(help, [0, 2, 5]);
  },
};

import type { Command } from "commander";
import type { CliModule } from "../command.js";
import { printResult, reportError, table } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { withJobs } from "./jobs-cli.js";

/** `keel actions list|show`: the registered actions (built-ins and enabled plugins'). */
export const actionsCommands: CliModule = {
  register(program: Command): void {
    const actions = program
      .command("actions")
      .description("Actions: what a job can apply to a node (built-ins and plugins').");
    withStoreOptions(
      actions
        .command("list")
        .description("Registered actions, and plugin action files that failed to load."),
    ).action((flags: StoreCliOptions) =>
      withJobs(flags, async (ctx, options) => {
        const list = ctx.actions.actions.map((a) => ({
          id: a.manifest.id,
          version: a.manifest.version,
          source: a.source,
          runner: a.manifest.runner,
          kinds: a.manifest.preconditions.kinds ?? null,
          expectedDurationSeconds: a.manifest.expectedDurationSeconds,
          description: a.manifest.description,
        }));
        printResult(options, { ok: true, actions: list, failures: ctx.actions.failures }, () =>
          [
            table(
              ["action", "version", "source", "runner", "kinds"],
              list.map((a) => [a.id, a.version, a.source, a.runner, a.kinds?.join(",") ?? "any"]),
            ),
            ...ctx.actions.failures.map(
              (f) => `failed to load ${f.file} (${f.source}): ${f.message}`,
            ),
          ].join("\n"),
        );
      }).catch((error: unknown) => reportError(flags, error)),
    );
    withStoreOptions(
      actions
        .command("show <id>")
        .description(
          "One action's full manifest: preconditions, expected duration, template, report schema.",
        ),
    ).action((id: string, flags: StoreCliOptions) =>
      withJobs(flags, async (ctx, options) => {
        const action = ctx.actions.get(id);
        const m = action.manifest;
        printResult(
          options,
          {
            ok: true,
            source: action.source,
            promptTemplateHash: action.promptTemplateHash,
            manifest: m,
          },
          () =>
            [
              `action       ${m.id}@${m.version} (${action.source})`,
              `description  ${m.description}`,
              `applies to   ${m.preconditions.kinds?.join(", ") ?? "every node"}`,
              `duration     ${m.expectedDurationSeconds}s expected; runner ${m.runner}`,
              `template     sha256 ${action.promptTemplateHash} (with the preamble)`,
              "",
              m.promptTemplate,
              "report schema (on top of report-base's confidence and safety):",
              JSON.stringify(m.reportSchema, null, 2),
            ].join("\n"),
        );
      }).catch((error: unknown) => reportError(flags, error)),
    );
  },
};

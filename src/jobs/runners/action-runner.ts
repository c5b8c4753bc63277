import type { JobsContext } from "../context.js";
import type { JobRunner } from "./runner.js";

/**
 * The runner `keel job run` and `keel worker` use: each job runs on the runner its action
 * declares — `in-process` actions on `inProcess` (a durable governed run in this process), every
 * other job on `cli`. Which one a job takes is fixed at its claim (the row's `runner`).
 *
 * @example
 * const runner = actionRunner({ cli: cliRunner({ command }), inProcess: inProcessRunner() });
 */
export function actionRunner(runners: { cli: JobRunner; inProcess: JobRunner }): JobRunner {
  const pick = (runner: string | null) =>
    runner === "in-process" ? runners.inProcess : runners.cli;
  return {
    kind: runners.cli.kind,
    runsInProcess: true,
    describe: (job) => pick(job.runner).describe(job),
    run: (input) => pick(input.job.runner).run(input),
  };
}

/**
 * The ids of the actions that run in-process (their jobs are claimed as runner `in-process`).
 *
 * @example
 * const job = await claimNextJob(ctx, { runner: "cli", inProcessActions: inProcessActionIds(ctx) });
 */
export function inProcessActionIds(ctx: Pick<JobsContext, "actions">): string[] {
  return ctx.actions.actions
    .filter((action) => action.manifest.runner === "in-process")
    .map((action) => action.manifest.id);
}

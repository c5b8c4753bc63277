import type { Command } from "commander";
import { cancelJob, pruneJobFiles, reapExpired } from "../../jobs/index.js";
import { printResult, reportError } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { withJobs } from "./jobs-cli.js";

interface PruneFlags extends StoreCliOptions {
  orphanFiles?: boolean;
}

/** `keel job cancel|reap|prune`. */
export function registerJobAdmin(job: Command): void {
  withStoreOptions(
    job
      .command("cancel <id>")
      .description("Fail a queued or running job as user-cancelled (a terminal job: exit 2)."),
  ).action((id: string, flags: StoreCliOptions) =>
    withJobs(flags, async (ctx, options) => {
      const cancelled = await cancelJob(ctx, id);
      printResult(
        options,
        { ok: true, job: cancelled },
        () => `${id} cancelled (was ${cancelled.status === "failed" ? "live" : cancelled.status})`,
      );
    }).catch((error: unknown) => reportError(flags, error)),
  );

  withStoreOptions(
    job
      .command("reap")
      .description(
        "Fail every running job past its TTL as abandoned (job run and worker do this before they claim).",
      ),
  ).action((flags: StoreCliOptions) =>
    withJobs(flags, async (ctx, options) => {
      const reapedIds = await reapExpired(ctx);
      printResult(options, { ok: true, reapedCount: reapedIds.length, reapedIds }, () =>
        reapedIds.length === 0 ? "nothing to reap" : `reaped ${reapedIds.join(", ")}`,
      );
    }).catch((error: unknown) => reportError(flags, error)),
  );

  withStoreOptions(
    job
      .command("prune")
      .description(
        "Apply retention (jobs.retention.completed, default 30 days; jobs.retention.failed, default never) to terminal jobs and their files.",
      )
      .option("--orphan-files", "also delete job files that no job names"),
  ).action((flags: PruneFlags) =>
    withJobs(flags, async (ctx, options) => {
      const result = await pruneJobFiles(ctx, { orphanFiles: flags.orphanFiles === true });
      printResult(
        options,
        { ok: true, ...result },
        () =>
          `pruned ${result.prunedJobs.length} job(s), removed ${result.removedFiles.length} file(s)`,
      );
    }).catch((error: unknown) => reportError(flags, error)),
  );
}

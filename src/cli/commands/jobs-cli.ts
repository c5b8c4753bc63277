import { KeelError } from "../../core/index.js";
import {
  type JobEvent,
  type JobEventSink,
  type JobsContext,
  openJobsContext,
} from "../../jobs/index.js";
import { pc } from "../colors.js";
import type { OutputOptions } from "../output.js";
import { openCliStore, openReadCliStore, outputOptions, type StoreCliOptions } from "../scope.js";

/**
 * Opens the verb's store and jobs context, runs `work`, closes the store. A verb that only reads
 * says `readOnly`: it then leaves nothing behind (see openReadCliStore).
 */
export async function withJobs<F extends StoreCliOptions>(
  flags: F,
  work: (ctx: JobsContext, options: F & OutputOptions) => Promise<void>,
  mode: { readOnly?: boolean } = {},
): Promise<void> {
  const options = outputOptions(flags);
  const store = mode.readOnly ? await openReadCliStore(options) : await openCliStore(options);
  try {
    await work(await openJobsContext(store), options);
  } finally {
    await store.close();
  }
}

/** A whole number flag ≥ `min`, or INVALID_ARGUMENT naming the flag. */
export function intFlag(name: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `${name} must be a whole number ≥ ${min}, not "${value}".`,
    );
  }
  return n;
}

/** Events for people: one progress line per job on stderr (nothing under -q). */
export function progressSink(options: OutputOptions): JobEventSink {
  const started = new Map<string, number>();
  const write = (line: string) => {
    if (!options.quiet) process.stderr.write(`${line}\n`);
  };
  return (event: JobEvent) => {
    const d = event.data as Record<string, unknown>;
    switch (event.type) {
      case "run.reap.completed":
        if (Number(d.reapedCount) > 0) write(pc.yellow(`reaped ${d.reapedCount} abandoned job(s)`));
        break;
      case "job.claimed":
        started.set(event.jobId ?? "", event.timestamp);
        write(pc.dim(`▸ ${event.jobId} ${d.actionId} ${d.nodeId} (ttl ${d.ttlSeconds}s)`));
        break;
      case "job.completed":
        write(`${pc.green("✓")} ${event.jobId} completed in ${d.durationMs} ms`);
        break;
      case "job.failed":
        write(
          `${pc.red("✗")} ${event.jobId} failed (${d.reason}): ${String(d.message ?? "").slice(0, 200)}`,
        );
        break;
      case "job.skipped":
        write(pc.dim(d.reason === "queue-empty" ? "queue empty" : "no job matches the filter"));
        break;
      case "run.summary":
        write(`${d.jobsAttempted} job(s): ${d.jobsCompleted} completed, ${d.jobsFailed} failed`);
        break;
      default:
    }
  };
}

/** Events as ndjson on stdout, one line per event, written as each happens. */
export function stdoutNdjson(): (line: string) => void {
  return (line) => {
    process.stdout.write(line);
  };
}

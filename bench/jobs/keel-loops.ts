import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../src/core/index.js";
import { claimNextJob, type JobsContext, recordAndClaimNext } from "../../src/jobs/index.js";

/** A no-op job's report: the smallest that meets report-base and the skill summary. */
const REPORT = {
  confidence: 1,
  safety: { injectionDetected: false, contentQuality: "clean" },
};

/** The bench's action: a plugin action with no report fields beyond report-base's. */
export const NOOP_ACTION = "noop";

/** Installs the `noop` action as a plugin of the project at `keelDir`. */
export function installNoopPlugin(keelDir: string): void {
  const dir = join(keelDir, "plugins", "bench-noop");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "plugin.json"),
    JSON.stringify({ id: "bench-noop", version: "1.0.0", extensions: ["noop.action.json"] }),
  );
  writeFileSync(
    join(dir, "noop.action.json"),
    JSON.stringify({
      kind: "action",
      id: NOOP_ACTION,
      version: "1.0.0",
      description: "Does nothing.",
      expectedDurationSeconds: 1,
      promptTemplate: "Nothing to do.\n{{node}}\n",
      runner: "cli",
    }),
  );
}

/** Queues `n` no-op jobs straight into state_jobs (the bench measures claim → run → record). */
export async function queueNoopJobs(ctx: JobsContext, n: number, round: number): Promise<void> {
  const rows = Array.from({ length: n }, (_, i) => ({
    id: `d-20250101-${String(round).padStart(6, "0")}-${i.toString(16).padStart(4, "0")}x${i}`,
    action_id: NOOP_ACTION,
    action_version: "1.0.0",
    node_id: `skills/${round}-${i}.md`,
    content_hash: sha256Hex(`${round}-${i}`),
    nonce: sha256Hex(`nonce-${round}-${i}`),
    status: "queued" as const,
    ttl_seconds: 600,
    file_path: null,
    created_at: 1_700_000_000_000 + i,
    submitted_by: null,
  }));
  for (let i = 0; i < rows.length; i += 500) {
    await ctx.store.kysely
      .insertInto("state_jobs")
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

/**
 * Drains the queue with `loops` concurrent claim → run (a no-op) → record loops; each record
 * validates the report and writes the execution row with the transition. Resolves jobs/s.
 */
export async function drainWithKeel(
  ctx: JobsContext,
  loops: number,
  expected: number,
): Promise<number> {
  let done = 0;
  const start = performance.now();
  // A runner's loop: claim, run (nothing), then record the job and claim the next in one step.
  const loop = async () => {
    let job = await claimNextJob(ctx, { runner: "in-process" });
    while (job) {
      const step = await recordAndClaimNext(
        ctx,
        { id: job.id, nonce: job.nonce, claimed: job, status: "completed", report: REPORT },
        { runner: "in-process" },
      );
      if (!step.result.ok) throw step.result.error;
      done++;
      job = step.next;
    }
  };
  await Promise.all(Array.from({ length: loops }, loop));
  const seconds = (performance.now() - start) / 1000;
  if (done !== expected) throw new Error(`drained ${done} of ${expected} jobs`);
  return done / seconds;
}

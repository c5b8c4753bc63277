/**
 * The shared steps of the queue (group commit): a step with records and a claim, each record
 * guarded alone — mixed outcomes in one batch, a record of a job reaped or cancelled meanwhile,
 * a claim racing a cancel, an empty batch — and the loops' concurrency limits.
 */
import { afterAll, describe, expect, it } from "vitest";
import { isKeelError, sha256Hex } from "../../src/core/index.js";
import { newExecutionId } from "../../src/jobs/ids.js";
import {
  cancelJob,
  claimNextJob,
  type JobRunner,
  reapExpired,
  recordAndClaimNext,
  recordJob,
  runJobs,
  submitJob,
} from "../../src/jobs/index.js";
import { queueStep, type RecordTransition } from "../../src/jobs/sql/queue-step.js";
import {
  addNode,
  GOOD_SKILL_REPORT,
  type JobsHarness,
  type JobsProject,
} from "./support/harness.js";

/** Queues `n` jobs straight into state_jobs (ttl 60 s), oldest first; resolves their ids. */
async function queue(p: JobsProject, n: number, prefix = "q"): Promise<string[]> {
  const rows = Array.from({ length: n }, (_, i) => ({
    id: `d-20250101-000000-${prefix}${i.toString().padStart(3, "0")}`,
    action_id: "skill-summarizer",
    action_version: "1.0.0",
    node_id: `skills/${prefix}${i}.md`,
    content_hash: sha256Hex(`${prefix}${i}`),
    nonce: sha256Hex(`nonce-${prefix}-${i}`),
    status: "queued" as const,
    ttl_seconds: 60,
    file_path: null,
    created_at: 1_700_000_000_000 + i,
    submitted_by: null,
  }));
  await p.store.kysely.insertInto("state_jobs").values(rows).execute();
  return rows.map((row) => row.id);
}

const nonceOf = (prefix: string, i: number) => sha256Hex(`nonce-${prefix}-${i}`);

function completed(id: string, nonce: string, now: number): RecordTransition {
  return {
    id,
    nonce,
    executionId: newExecutionId(now),
    status: "completed",
    failureReason: null,
    executionStatus: "completed",
    now,
    metrics: { durationMs: 1 },
  };
}

async function executionsBy(p: JobsProject): Promise<Map<string, string[]>> {
  const rows = await p.store.kysely
    .selectFrom("state_executions")
    .select(["job_id", "status"])
    .execute();
  const by = new Map<string, string[]>();
  for (const row of rows)
    by.set(row.job_id ?? "", [...(by.get(row.job_id ?? "") ?? []), row.status]);
  return by;
}

async function statusOf(p: JobsProject, id: string) {
  return p.store.kysely
    .selectFrom("state_jobs")
    .select(["status", "failure_reason", "finished_at"])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
}

/** A runner that finishes at once with a good report, counting the jobs it runs at a time. */
function countingRunner(holdMs: number) {
  const seen = { inFlight: 0, max: 0, ran: [] as string[] };
  const runner: JobRunner = {
    kind: "cli",
    describe: () => "counting",
    async run({ job }) {
      seen.inFlight++;
      seen.max = Math.max(seen.max, seen.inFlight);
      seen.ran.push(job.id);
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      seen.inFlight--;
      return { report: GOOD_SKILL_REPORT, durationMs: holdMs };
    },
  };
  return { runner, seen };
}

export function batchCases(h: JobsHarness): void {
  describe(`the queue's shared steps on ${h.dialect}`, () => {
    afterAll(() => h.cleanup());

    it("a batch with mixed outcomes: each record is guarded alone; refused ones write nothing; the claim still happens", async () => {
      const p = await h.project("mixed");
      const ctx = await p.ctx();
      const ids = await queue(p, 8, "m");
      // Six running jobs (m000–m005), two left queued (m006, m007).
      for (let i = 0; i < 6; i++) await claimNextJob(ctx, { runner: "cli" });
      const [a, b, c, d, e, f] = ids as [string, string, string, string, string, string];
      // d was reaped meanwhile (expired and failed as abandoned), e cancelled.
      await p.store.kysely
        .updateTable("state_jobs")
        .set({ expires_at: 1 })
        .where("id", "=", d)
        .execute();
      expect(await reapExpired(ctx)).toEqual([d]);
      await cancelJob(ctx, e);
      const now = Date.now();
      const failedB: RecordTransition = {
        ...completed(b, nonceOf("m", 1), now),
        status: "failed",
        failureReason: "runner-error",
        executionStatus: "failed",
        metrics: { errorMessage: "exit 1", exitCode: 1 },
      };
      const twiceA = completed(a, nonceOf("m", 0), now);
      const result = await queueStep(p.store, {
        records: [
          completed(a, nonceOf("m", 0), now), // ok
          failedB, // ok, failed
          completed(c, "forged", now), // wrong nonce: refused
          completed(d, nonceOf("m", 3), now), // reaped meanwhile: refused
          completed(e, nonceOf("m", 4), now), // cancelled meanwhile: refused
          twiceA, // a second record of a in the same step: refused
          completed(f, nonceOf("m", 5), now), // ok
        ],
        claim: { now, runner: "cli", limit: 3 },
      });
      expect(result.recorded.map((r) => r?.jobId)).toEqual([
        a,
        b,
        undefined,
        undefined,
        undefined,
        undefined,
        f,
      ]);
      // Three asked, two queued: both claimed, in claim order.
      expect(result.claimed.map((row) => row.id)).toEqual([ids[6], ids[7]]);
      const executions = await executionsBy(p);
      expect(executions.get(a)).toEqual(["completed"]);
      expect(executions.get(b)).toEqual(["failed"]);
      expect(executions.get(f)).toEqual(["completed"]);
      expect(executions.get(c)).toBeUndefined();
      expect(executions.get(d)).toEqual(["failed"]); // the reap's, nothing more
      expect(executions.get(e)).toEqual(["cancelled"]); // the cancel's, nothing more
      expect(await statusOf(p, c)).toMatchObject({ status: "running", finished_at: null });
      expect(await statusOf(p, d)).toMatchObject({ status: "failed", failure_reason: "abandoned" });
      expect(await statusOf(p, e)).toMatchObject({
        status: "failed",
        failure_reason: "user-cancelled",
      });
    });

    it("an empty batch: no records and no claim (or a claim of nothing) writes nothing", async () => {
      const p = await h.project("empty");
      const now = Date.now();
      expect(await queueStep(p.store, { records: [] })).toEqual({ recorded: [], claimed: [] });
      expect(
        await queueStep(p.store, { records: [], claim: { now, runner: "cli", limit: 0 } }),
      ).toEqual({ recorded: [], claimed: [] });
      // A claim on an empty queue, alone and with a refused record.
      expect(
        await queueStep(p.store, { records: [], claim: { now, runner: "cli", limit: 4 } }),
      ).toEqual({ recorded: [], claimed: [] });
      const ghost = completed("d-20250101-000000-none", "x", now);
      expect(
        await queueStep(p.store, { records: [ghost], claim: { now, runner: "cli", limit: 1 } }),
      ).toEqual({ recorded: [undefined], claimed: [] });
      expect((await executionsBy(p)).size).toBe(0);
    });

    it("a record of a job reaped meanwhile is refused (exit 2) but the next job claimed with it is handed back", async () => {
      const p = await h.project("reaped");
      await addNode(p, "skills/a.md", "skill", "A");
      await addNode(p, "skills/b.md", "skill", "B");
      const ctx = await p.ctx();
      const first = await submitJob(ctx, { actionId: "skill-summarizer", nodePath: "skills/a.md" });
      const other = await submitJob(ctx, {
        actionId: "skill-summarizer",
        nodePath: "skills/b.md",
      });
      const job = await claimNextJob(ctx, { runner: "cli" });
      if (!job) throw new Error("nothing claimed");
      // Jobs submitted in the same millisecond are claimed in id order, which is random.
      const second = job.id === first.id ? other : first;
      await p.store.kysely
        .updateTable("state_jobs")
        .set({ expires_at: 1 })
        .where("id", "=", job.id)
        .execute();
      expect(await reapExpired(ctx)).toEqual([job.id]);
      const step = await recordAndClaimNext(
        ctx,
        {
          id: job.id,
          nonce: job.nonce,
          claimed: job,
          status: "completed",
          report: GOOD_SKILL_REPORT,
        },
        { runner: "cli" },
      );
      expect(step.result.ok).toBe(false);
      const error = step.result.ok ? undefined : step.result.error;
      expect(isKeelError(error) && `${error.code}/${error.exitCode}`).toBe("JOB_NOT_RUNNING/2");
      expect(step.next?.id).toBe(second.id);
      expect((await statusOf(p, second.id)).status).toBe("running");
      expect((await executionsBy(p)).get(job.id)).toEqual(["failed"]);
    });

    it("a claim racing a cancel: whoever wins, the job ends failed user-cancelled once; a claimant's record is refused", async () => {
      const p = await h.project("race");
      const ctx = await p.ctx();
      const outcomes = { claimedFirst: 0, cancelledFirst: 0 };
      for (let round = 0; round < 12; round++) {
        const [id] = await queue(p, 1, `r${round}-`);
        if (!id) throw new Error("no job");
        // Both go out at once (the claim through the shared step, the cancel on its own).
        const [claimed, cancelled] = await Promise.all([
          claimNextJob(ctx, { runner: "cli" }),
          round % 2 === 0
            ? cancelJob(ctx, id)
            : new Promise<void>((resolve) => setImmediate(resolve)).then(() => cancelJob(ctx, id)),
        ]);
        expect(cancelled).toMatchObject({ status: "failed", failureReason: "user-cancelled" });
        if (claimed) {
          outcomes.claimedFirst++;
          expect(claimed.id).toBe(id);
          const late = await recordJob(ctx, {
            id,
            nonce: claimed.nonce,
            status: "completed",
            report: GOOD_SKILL_REPORT,
          }).catch((e: unknown) => e);
          expect(isKeelError(late) && late.code).toBe("JOB_NOT_RUNNING");
        } else outcomes.cancelledFirst++;
        expect((await executionsBy(p)).get(id)).toEqual(["cancelled"]);
        expect(await statusOf(p, id)).toMatchObject({
          status: "failed",
          failure_reason: "user-cancelled",
        });
      }
      expect(outcomes.claimedFirst + outcomes.cancelledFirst).toBe(12);
    });

    it("concurrency limits: --max N across loops, more loops than jobs, at most N jobs in flight", async () => {
      const p = await h.project("limits");
      const ctx = await p.ctx();
      for (let i = 0; i < 10; i++) {
        await addNode(p, `skills/l${i}.md`, "skill", `L${i}`);
        await submitJob(ctx, { actionId: "skill-summarizer", nodePath: `skills/l${i}.md` });
      }
      // --max 4 with 3 loops: exactly 4 run, whatever the loops' interleaving.
      const first = countingRunner(5);
      const max = await runJobs(ctx, { mode: "max", max: 4, concurrency: 3, runner: first.runner });
      expect(max).toMatchObject({ jobsAttempted: 4, jobsCompleted: 4 });
      expect(new Set(first.seen.ran).size).toBe(4);
      // 3 loops over the other 6: never more than 3 at a time, each job once.
      const second = countingRunner(20);
      const all = await runJobs(ctx, { mode: "all", concurrency: 3, runner: second.runner });
      expect(all).toMatchObject({ jobsCompleted: 6, jobsFailed: 0 });
      expect(second.seen.max).toBeLessThanOrEqual(3);
      expect(second.seen.max).toBeGreaterThan(1);
      expect(new Set([...first.seen.ran, ...second.seen.ran]).size).toBe(10);
      // More loops than jobs: 8 loops, 2 jobs — each once, the other loops find the queue empty.
      for (const name of ["x", "y"]) {
        await addNode(p, `skills/${name}.md`, "skill", name);
        await submitJob(ctx, { actionId: "skill-summarizer", nodePath: `skills/${name}.md` });
      }
      const third = countingRunner(1);
      const events: string[] = [];
      const few = await runJobs(ctx, {
        mode: "all",
        concurrency: 8,
        runner: third.runner,
        emit: (e) => events.push(e.type),
      });
      expect(few).toMatchObject({ jobsAttempted: 2, jobsCompleted: 2 });
      expect(third.seen.ran).toHaveLength(2);
      expect(events.filter((t) => t === "job.skipped")).toHaveLength(1);
      const executions = await executionsBy(p);
      expect([...executions.values()].every((s) => s.length === 1)).toBe(true);
      expect(executions.size).toBe(12);
    });
  });
}

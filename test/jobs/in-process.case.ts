/**
 * The in-process runner: an action implemented by an IR document runs as a durable governed run
 * inside the worker. A worker killed with SIGKILL mid-job leaves the job running; after its TTL
 * the next worker takes it over and continues the run from its checkpoint — the job completes
 * exactly once and no effect runs twice — instead of the reap failing it as abandoned.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isKeelError } from "../../src/core/index.js";
import {
  actionRunner,
  claimNextJob,
  cliRunner,
  inProcessActionIds,
  inProcessRunner,
  type JobsContext,
  jobThreadId,
  openJobsContext,
  reapExpired,
  recordJob,
  resumeExpiredJob,
  runJobs,
  runWorker,
  submitJob,
} from "../../src/jobs/index.js";
import { GovernedRuntime, loadDocumentTools } from "../../src/runtime/index.js";
import type { StoreBackend } from "../../src/store/dialects/backend.js";
import { jobChecks } from "../../src/store/doctor/job-checks.js";
import { seededRandom } from "../checkpoint/crash/crash-harness.js";
import { bundleKeelCli } from "../support/child-bundle.js";
import { workerEnv } from "./support/build-worker.js";
import { addNode, type JobsHarness, type JobsProject } from "./support/harness.js";

// The issue asks for at least 30 seeded kill -9 trials; KEEL_JOBS_INPROC_TRIALS changes it.
const TRIALS = Number(process.env.KEEL_JOBS_INPROC_TRIALS ?? 30);
const SEED = Number(process.env.KEEL_JOBS_INPROC_SEED ?? 16);
const ACTION = "durable-summary";

/**
 * Puts a plugin with an in-process action in the project: an IR document of three steps — an
 * effect, a wait, another effect and the report — whose tool appends every call it runs to
 * `effects.log` (not idempotent: a second run of it shows). While `slow` exists, the wait step
 * writes `entered` and waits, so a test can kill or stop the worker inside it.
 */
function durableAction(p: JobsProject): { effects: string; slow: string; entered: string } {
  const dir = join(p.keelDir, "plugins", "durable");
  mkdirSync(dir, { recursive: true });
  const effects = join(p.dir, "effects.log");
  const slow = join(p.dir, "slow");
  const entered = join(p.dir, "entered");
  writeFileSync(
    join(dir, "plugin.json"),
    JSON.stringify({
      id: "durable",
      version: "1.0.0",
      specCompat: "^0.1.0",
      extensions: ["action.json"],
    }),
  );
  writeFileSync(
    join(dir, "action.json"),
    JSON.stringify({
      kind: "action",
      id: ACTION,
      version: "1.0.0",
      description: "Summarises a skill in three durable steps.",
      preconditions: { kinds: ["skill"] },
      expectedDurationSeconds: 5,
      promptTemplate: "Summarise:\n{{node}}\n",
      reportSchema: {
        type: "object",
        required: ["whatItDoes"],
        properties: { whatItDoes: { type: "string" } },
      },
      runner: "in-process",
      implementation: { kind: "ir", document: "summary.json" },
    }),
  );
  writeFileSync(
    join(dir, "summary.json"),
    JSON.stringify({
      ir_version: "1.0.0",
      id: "graph:durable-summary",
      nodes: [
        { id: "first", kind: "./kinds.mjs:first" },
        { id: "wait", kind: "./kinds.mjs:wait" },
        { id: "second", kind: "./kinds.mjs:second" },
        { id: "done", kind: "halt" },
      ],
      tools: [{ id: "fx.append", version: "1.0.0" }],
      state_schema: {
        job_id: "str",
        node_path: "str",
        whatItDoes: "str?",
        confidence: "float?",
        safety: "dict?",
      },
    }),
  );
  writeFileSync(
    join(dir, "kinds.mjs"),
    `import { appendFileSync, existsSync, writeFileSync } from "node:fs";
export async function first(state, { call }) {
  await call("fx.append", { mark: "first", job: state.job_id });
  return {};
}
export async function wait() {
  if (existsSync(${JSON.stringify(slow)})) {
    writeFileSync(${JSON.stringify(entered)}, String(process.pid));
    while (existsSync(${JSON.stringify(slow)})) await new Promise((r) => setTimeout(r, 20));
  }
  return {};
}
export async function second(state, { call }) {
  await call("fx.append", { mark: "second", job: state.job_id });
  return {
    whatItDoes: "Summarised " + state.node_path,
    confidence: 0.8,
    safety: { injectionDetected: false, contentQuality: "clean" },
  };
}
export const tools = [{
  spec: { name: "append", namespace: "fx", version: "1.0.0", description: "Appends a mark",
    input_schema: { type: "object" }, output_schema: { type: "object" },
    side_effects: "write", tags: ["risk:low"] },
  handler: async ({ mark, job }) => {
    appendFileSync(${JSON.stringify(effects)}, mark + " " + job + "\\n");
    return { ok: true };
  },
}];
`,
  );
  return { effects, slow, entered };
}

/** The lines of the effects log (each one run of the tool). */
function effectLines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : [];
}

const runner = () =>
  actionRunner({ cli: cliRunner({ command: "false" }), inProcess: inProcessRunner() });

/** A context whose clock is `ms` ahead (a job's TTL passes without waiting for it). */
const later = (p: JobsProject, ms: number) =>
  openJobsContext(p.store, { now: () => Date.now() + ms });

async function executionsOf(p: JobsProject, jobId: string) {
  return p.store.kysely
    .selectFrom("state_executions")
    .select(["status", "failure_reason", "report_path", "error_message"])
    .where("job_id", "=", jobId)
    .execute();
}

async function jobRow(p: JobsProject, jobId: string) {
  return p.store.kysely
    .selectFrom("state_jobs")
    .selectAll()
    .where("id", "=", jobId)
    .executeTakeFirstOrThrow();
}

async function runsOf(p: JobsProject, jobId: string) {
  const probe = new GovernedRuntime({ store: p.store, tools: await loadDocumentTools([]) });
  return probe.runs.list({ threadId: jobThreadId(jobId) });
}

async function submitOne(ctx: JobsContext, p: JobsProject, name: string, ttlSeconds = 30) {
  await addNode(p, `skills/${name}.md`, "skill", `The ${name} skill.`);
  return submitJob(ctx, { actionId: ACTION, nodePath: `skills/${name}.md`, ttlSeconds });
}

export function inProcessCases(h: JobsHarness): void {
  describe(`the in-process runner on ${h.dialect}`, {
    timeout: 60_000 * Math.max(2, TRIALS),
  }, () => {
    let cli: string | undefined;
    const children: ChildProcess[] = [];
    afterAll(async () => {
      for (const child of children) child.kill("SIGKILL");
      await h.cleanup();
    });

    it("runs the action's document as a governed run; the final state is the report", async () => {
      const p = await h.project("inproc-run");
      const fx = durableAction(p);
      const ctx = await openJobsContext(p.store);
      expect(inProcessActionIds(ctx)).toEqual([ACTION]);
      const job = await submitOne(ctx, p, "a");
      const events: string[] = [];
      const summary = await runJobs(ctx, {
        mode: "all",
        runner: runner(),
        emit: (e) =>
          events.push(`${e.type}${e.type === "job.spawning" ? ` ${e.data.runner}` : ""}`),
      });
      expect(summary).toMatchObject({ jobsCompleted: 1, jobsFailed: 0 });
      expect(events).toContain("job.spawning in-process");
      const row = await jobRow(p, job.id);
      expect(row).toMatchObject({ status: "completed", runner: "in-process", resume_count: 0 });
      const [execution, ...more] = await executionsOf(p, job.id);
      expect(more).toEqual([]);
      expect(execution?.status).toBe("completed");
      const report = JSON.parse(readFileSync(join(p.dir, execution?.report_path ?? ""), "utf8"));
      // The job's input fields are not part of the report; the document's own fields are.
      expect(report).toEqual({
        whatItDoes: "Summarised skills/a.md",
        confidence: 0.8,
        safety: { injectionDetected: false, contentQuality: "clean" },
      });
      expect(effectLines(fx.effects)).toEqual([`first ${job.id}`, `second ${job.id}`]);
      const runs = await runsOf(p, job.id);
      expect(runs.map((r) => r.status)).toEqual(["succeeded"]);
    });

    it("a run that fails or waits for an approval fails the job as runner-error (naming the run); a final state that fails the report schema, as report-invalid", async () => {
      const p = await h.project("inproc-fail");
      durableAction(p);
      // The document's second step now throws.
      const kinds = join(p.keelDir, "plugins", "durable", "kinds.mjs");
      writeFileSync(
        kinds,
        readFileSync(kinds, "utf8").replace(
          'await call("fx.append", { mark: "second"',
          'throw new Error("the model is down"); await call("fx.append", { mark: "second"',
        ),
      );
      const ctx = await openJobsContext(p.store);
      const job = await submitOne(ctx, p, "b");
      const summary = await runJobs(ctx, { mode: "all", runner: runner() });
      expect(summary).toMatchObject({ jobsCompleted: 0, jobsFailed: 1 });
      const [execution] = await executionsOf(p, job.id);
      expect(execution).toMatchObject({ status: "failed", failure_reason: "runner-error" });
      expect(execution?.error_message).toContain("the model is down");
      expect(execution?.error_message).toContain("Run ");
      // A final state that is not a valid report (no whatItDoes): report-invalid.
      const q = await h.project("inproc-invalid");
      durableAction(q);
      const qKinds = join(q.keelDir, "plugins", "durable", "kinds.mjs");
      writeFileSync(
        qKinds,
        readFileSync(qKinds, "utf8").replace('whatItDoes: "Summarised " + state.node_path,', ""),
      );
      const qctx = await openJobsContext(q.store);
      const bad = await submitOne(qctx, q, "b2");
      expect(await runJobs(qctx, { mode: "all", runner: runner() })).toMatchObject({
        jobsFailed: 1,
      });
      const [invalid] = await executionsOf(q, bad.id);
      expect(invalid).toMatchObject({ status: "failed", failure_reason: "report-invalid" });
      // A gated effect (high risk at A2: confirm) pauses the run for an approval: a job cannot
      // wait for a person, so it fails as runner-error naming what the run waits for.
      const g = await h.project("inproc-gated");
      const gfx = durableAction(g);
      const gKinds = join(g.keelDir, "plugins", "durable", "kinds.mjs");
      writeFileSync(gKinds, readFileSync(gKinds, "utf8").replace("risk:low", "risk:high"));
      const gctx = await openJobsContext(g.store);
      const gated = await submitOne(gctx, g, "g");
      expect(await runJobs(gctx, { mode: "all", runner: runner() })).toMatchObject({
        jobsFailed: 1,
      });
      const [paused] = await executionsOf(g, gated.id);
      expect(paused).toMatchObject({ status: "failed", failure_reason: "runner-error" });
      expect(paused?.error_message).toContain("paused");
      expect(paused?.error_message).toContain("keel approvals approve");
      expect(effectLines(gfx.effects)).toEqual([]);
      expect((await runsOf(g, gated.id)).map((r) => r.status)).toEqual(["paused"]);
    });

    it("resume budget: an expired in-process job is taken over (new nonce, resume_count + 1) until jobs.max_resumes, then reaped as abandoned", async () => {
      const p = await h.project("inproc-budget");
      durableAction(p);
      const ctx = await openJobsContext(p.store, { config: { maxResumes: 1 } });
      const job = await submitOne(ctx, p, "c", 10);
      const claimed = await claimNextJob(ctx, {
        runner: "cli",
        inProcessActions: inProcessActionIds(ctx),
      });
      expect(claimed?.runner).toBe("in-process");
      // Past its TTL, doctor names the workers that resume it, not only the reap.
      const doctor = await jobChecks(
        { kysely: p.store.kysely } as unknown as StoreBackend,
        p.keelDir,
        Date.now() + 11_000,
      );
      expect(doctor.stuck.status).toBe("warn");
      expect(doctor.stuck.remedy).toContain("resumes the in-process ones");
      // Not yet expired: nothing to take over, nothing to reap.
      expect(await resumeExpiredJob(ctx)).toBeUndefined();
      const t1 = await openJobsContext(p.store, {
        now: () => Date.now() + 11_000,
        config: { maxResumes: 1 },
      });
      expect(await reapExpired(t1)).toEqual([]);
      const taken = await resumeExpiredJob(t1);
      expect(taken).toMatchObject({ id: job.id, status: "running", resumeCount: 1 });
      expect(taken?.nonce).not.toBe(claimed?.nonce);
      // Only one taker: a second take-over finds nothing.
      expect(await resumeExpiredJob(t1)).toBeUndefined();
      // The first claimer's record is refused with exit 4 (its nonce is void), nothing written.
      const stale = await recordJob(ctx, {
        id: job.id,
        nonce: claimed?.nonce,
        status: "failed",
        error: "late",
      }).catch((e: unknown) => e);
      expect(isKeelError(stale) && stale.code).toBe("JOB_NONCE_MISMATCH");
      expect((await jobRow(p, job.id)).status).toBe("running");
      // The budget is spent: once the second claim expires, the reap fails it as abandoned.
      const t2 = await openJobsContext(p.store, {
        now: () => Date.now() + 22_000,
        config: { maxResumes: 1 },
      });
      expect(await resumeExpiredJob(t2)).toBeUndefined();
      expect(await reapExpired(t2)).toEqual([job.id]);
      const [execution] = await executionsOf(p, job.id);
      expect(execution).toMatchObject({ status: "failed", failure_reason: "abandoned" });
      expect(execution?.error_message).toContain("1 resume(s)");
      // A cli job is never taken over: its expiry is a reap.
      await addNode(p, "skills/d.md", "skill", "d");
      const cliJob = await submitJob(ctx, {
        actionId: "skill-summarizer",
        nodePath: "skills/d.md",
        ttlSeconds: 10,
      });
      await claimNextJob(ctx, { runner: "cli", inProcessActions: inProcessActionIds(ctx) });
      expect((await jobRow(p, cliJob.id)).runner).toBe("cli");
      expect(await resumeExpiredJob(t2)).toBeUndefined();
      expect(await reapExpired(t2)).toEqual([cliJob.id]);
    });

    it("a worker that died after its run ended but before recording: the next worker records the run's result without running anything again", async () => {
      const p = await h.project("inproc-ended");
      const fx = durableAction(p);
      const ctx = await openJobsContext(p.store);
      const job = await submitOne(ctx, p, "e", 10);
      const claimed = await claimNextJob(ctx, {
        runner: "cli",
        inProcessActions: inProcessActionIds(ctx),
      });
      if (!claimed) throw new Error("nothing claimed");
      // The run, without the record (the worker "dies" right after it).
      const ran = await inProcessRunner().run({
        job: claimed,
        jobFileText: "",
        jobFilePath: "",
        ctx,
        timeoutMs: 10_000,
      });
      expect(ran.failureReason).toBeUndefined();
      expect(effectLines(fx.effects)).toHaveLength(2);
      const summary = await runJobs(await later(p, 11_000), { mode: "all", runner: runner() });
      expect(summary).toMatchObject({ jobsCompleted: 1, reapedIds: [] });
      expect(await jobRow(p, job.id)).toMatchObject({ status: "completed", resume_count: 1 });
      expect(effectLines(fx.effects)).toEqual([`first ${job.id}`, `second ${job.id}`]);
      expect((await runsOf(p, job.id)).map((r) => r.status)).toEqual(["succeeded"]);
    });

    it("an action implemented by a keelApp module (a graph and its tools): run, and a take-over after the run ended records it without running again", async () => {
      const p = await h.project("inproc-module");
      const dir = join(p.keelDir, "plugins", "graphs");
      mkdirSync(dir, { recursive: true });
      const effects = join(p.dir, "effects.log");
      const src = join(import.meta.dirname, "..", "..", "src");
      writeFileSync(
        join(dir, "plugin.json"),
        JSON.stringify({
          id: "graphs",
          version: "1.0.0",
          specCompat: "^0.1.0",
          extensions: ["action.json"],
        }),
      );
      writeFileSync(
        join(dir, "action.json"),
        JSON.stringify({
          kind: "action",
          id: "graph-summary",
          version: "1.0.0",
          description: "Summarises a skill with a StateGraph.",
          expectedDurationSeconds: 5,
          promptTemplate: "Summarise:\n{{node}}\n",
          reportSchema: { type: "object", required: ["whatItDoes"] },
          runner: "in-process",
          implementation: { kind: "module", module: "app.ts" },
        }),
      );
      writeFileSync(
        join(dir, "app.ts"),
        `import { appendFileSync } from "node:fs";
import { Annotation, END, START, StateGraph } from ${JSON.stringify(join(src, "graph", "index.ts"))};
import { governedNode, ToolRegistry } from ${JSON.stringify(join(src, "runtime", "index.ts"))};
const State = Annotation.Root({
  job_id: Annotation(), action_id: Annotation(), action_version: Annotation(),
  node_path: Annotation(), prompt: Annotation(),
  whatItDoes: Annotation(), confidence: Annotation(), safety: Annotation(),
});
export const keelApp = () => {
  const tools = new ToolRegistry();
  tools.register({ name: "append", namespace: "fx", version: "1.0.0", description: "Appends",
    input_schema: { type: "object" }, output_schema: { type: "object" },
    side_effects: "write", tags: ["risk:low"] },
    (input) => { appendFileSync(${JSON.stringify(effects)}, input.mark + "\\n"); return {}; });
  return {
    tools,
    graph: (runtime) => new StateGraph(State)
      .addNode("first", governedNode(async (s, ctx) => { await ctx.call("fx.append", { mark: "first " + s.job_id }); return {}; }))
      .addNode("second", governedNode(async (s, ctx) => {
        await ctx.call("fx.append", { mark: "second " + s.job_id });
        return { whatItDoes: "Graph of " + s.node_path, confidence: 0.7,
          safety: { injectionDetected: false, contentQuality: "clean" } };
      }))
      .addEdge(START, "first").addEdge("first", "second").addEdge("second", END)
      .compile({ checkpointer: runtime.checkpointer }),
  };
};
`,
      );
      const ctx = await openJobsContext(p.store);
      expect(ctx.actions.failures).toEqual([]);
      await addNode(p, "skills/m.md", "skill", "M");
      await addNode(p, "skills/n.md", "skill", "N");
      const one = await submitJob(ctx, { actionId: "graph-summary", nodePath: "skills/m.md" });
      expect(await runJobs(ctx, { mode: "all", runner: runner() })).toMatchObject({
        jobsCompleted: 1,
      });
      const [execution] = await executionsOf(p, one.id);
      expect(execution?.status).toBe("completed");
      expect(JSON.parse(readFileSync(join(p.dir, execution?.report_path ?? ""), "utf8"))).toEqual({
        whatItDoes: "Graph of skills/m.md",
        confidence: 0.7,
        safety: { injectionDetected: false, contentQuality: "clean" },
      });
      // The worker "dies" after the run ended: the take-over reads the final checkpoint.
      const two = await submitJob(ctx, {
        actionId: "graph-summary",
        nodePath: "skills/n.md",
        ttlSeconds: 10,
      });
      const claimed = await claimNextJob(ctx, {
        runner: "cli",
        inProcessActions: inProcessActionIds(ctx),
      });
      if (!claimed) throw new Error("nothing claimed");
      await inProcessRunner().run({
        job: claimed,
        jobFileText: "",
        jobFilePath: "",
        ctx,
        timeoutMs: 10_000,
      });
      expect(
        await runJobs(await later(p, 11_000), { mode: "all", runner: runner() }),
      ).toMatchObject({
        jobsCompleted: 1,
      });
      expect(await jobRow(p, two.id)).toMatchObject({ status: "completed", resume_count: 1 });
      expect(effectLines(effects)).toEqual([
        `first ${one.id}`,
        `second ${one.id}`,
        `first ${two.id}`,
        `second ${two.id}`,
      ]);
    });

    it("a forced stop (a worker's second signal) releases an in-process job: left running, unrecorded, then taken over and recorded once", async () => {
      const p = await h.project("inproc-release");
      const fx = durableAction(p);
      const ctx = await openJobsContext(p.store);
      const job = await submitOne(ctx, p, "r", 10);
      writeFileSync(fx.slow, "");
      const stop = new AbortController();
      const abort = new AbortController();
      const events: { type: string; data: Record<string, unknown> }[] = [];
      const worker = runWorker(ctx, {
        runner: runner(),
        stop: stop.signal,
        abort: abort.signal,
        pollMs: 20,
        emit: (e) => events.push({ type: e.type, data: e.data }),
      });
      while (!existsSync(fx.entered)) await new Promise((resolve) => setTimeout(resolve, 20));
      stop.abort();
      abort.abort();
      await worker;
      const released = events.find((e) => e.type === "job.failed");
      expect(released?.data.message).toContain("left running for the next worker");
      expect(await jobRow(p, job.id)).toMatchObject({ status: "running", finished_at: null });
      expect(await executionsOf(p, job.id)).toEqual([]);
      // The run itself goes on in this process (nothing interrupts a step) and ends.
      rmSync(fx.slow);
      for (let i = 0; i < 500; i++) {
        if ((await runsOf(p, job.id))[0]?.status === "succeeded") break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const summary = await runJobs(await later(p, 11_000), { mode: "all", runner: runner() });
      expect(summary).toMatchObject({ jobsCompleted: 1, reapedIds: [] });
      expect(await jobRow(p, job.id)).toMatchObject({ status: "completed", resume_count: 1 });
      expect((await executionsOf(p, job.id)).map((e) => e.status)).toEqual(["completed"]);
      expect(effectLines(fx.effects)).toEqual([`first ${job.id}`, `second ${job.id}`]);
    });

    it(`kill -9 of a \`keel worker\` mid-job (${TRIALS} seeded trials): the next worker resumes the run from its checkpoint; the job completes once, no effect twice`, async () => {
      cli ??= await bundleKeelCli();
      const bundle = cli;
      // Two lanes: a trial mostly waits (a child's start, its poll, the kill, fsyncs), and each
      // has its own project, database and child. Each trial's delay comes from its own seed, so a
      // trial does the same whichever lane runs it and in whatever order.
      const trials = Array.from({ length: TRIALS }, (_, trial) => trial);
      const lane = async () => {
        for (let trial = trials.shift(); trial !== undefined; trial = trials.shift()) {
          await killTrial(bundle, trial);
        }
      };
      await Promise.all([lane(), lane()]);
    });

    /** One kill -9 trial: a `keel worker` killed inside the wait step, then the takeover. */
    async function killTrial(cli: string, trial: number): Promise<void> {
      const random = seededRandom(SEED + trial);
      const p = await h.project(`inproc-kill-${trial}`);
      const fx = durableAction(p);
      const ctx = await openJobsContext(p.store);
      const job = await submitOne(ctx, p, `k${trial}`, 20);
      writeFileSync(fx.slow, "");
      const child = spawn(
        process.execPath,
        [cli, "worker", "--json", "--db", p.db, "--poll-ms", "50"],
        { cwd: p.dir, env: workerEnv(h.dialect), stdio: ["ignore", "pipe", "pipe"] },
      );
      children.push(child);
      let stderr = "";
      child.stderr?.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      const exited = new Promise((resolve) => child.once("exit", resolve));
      // Synchronisation, not timing: the wait step writes `entered` once the first step's
      // effect and checkpoint are behind it; the kill lands a seeded 0–150 ms into the wait.
      while (!existsSync(fx.entered)) {
        if (child.exitCode !== null) throw new Error(`keel worker exited early: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 150)));
      const deadNonce = (await jobRow(p, job.id)).nonce;
      child.kill("SIGKILL");
      await exited;
      rmSync(fx.slow);
      expect(await jobRow(p, job.id)).toMatchObject({
        status: "running",
        runner: "in-process",
        resume_count: 0,
      });
      expect(effectLines(fx.effects)).toEqual([`first ${job.id}`]);
      // Before the TTL nobody takes it over; after it, the next worker resumes the run.
      expect(await resumeExpiredJob(ctx)).toBeUndefined();
      const next = await later(p, 21_000);
      const events: { type: string; data: Record<string, unknown> }[] = [];
      const summary = await runJobs(next, {
        mode: "all",
        runner: runner(),
        emit: (e) => events.push({ type: e.type, data: e.data }),
      });
      expect(summary, JSON.stringify(events)).toMatchObject({
        jobsCompleted: 1,
        jobsFailed: 0,
        reapedIds: [],
      });
      expect(events.find((e) => e.type === "job.claimed")?.data.resumeCount).toBe(1);
      expect(await jobRow(p, job.id)).toMatchObject({ status: "completed", resume_count: 1 });
      // Exactly once: one execution record, each effect once, one run (continued, not restarted).
      const executions = await executionsOf(p, job.id);
      expect(executions.map((e) => e.status)).toEqual(["completed"]);
      expect(effectLines(fx.effects)).toEqual([`first ${job.id}`, `second ${job.id}`]);
      expect((await runsOf(p, job.id)).map((r) => r.status)).toEqual(["succeeded"]);
      // The dead worker's nonce is void: a late record of it is refused with exit 4.
      const late = await recordJob(ctx, {
        id: job.id,
        nonce: deadNonce,
        status: "failed",
      }).catch((e: unknown) => e);
      expect(isKeelError(late) && late.code).toBe("JOB_NONCE_MISMATCH");
      rmSync(fx.entered);
    }
  });
}

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  cliRunner,
  countJobs,
  type JobEvent,
  openJobsContext,
  runWorker,
} from "../../src/jobs/index.js";
import { keelInProcess } from "../store/cli-in-process.js";
import {
  addNode,
  GOOD_SKILL_REPORT,
  type JobsHarness,
  type JobsProject,
} from "./support/harness.js";

const FAKE = join(import.meta.dirname, "support", "fake-runner.mjs");
const runner = (mode: string) => `"${process.execPath}" ${FAKE} ${mode}`;

function keel(p: JobsProject, args: string[]) {
  return keelInProcess([...args, "--db", p.db], { cwd: p.dir });
}

function events(stdout: string): {
  type: string;
  jobId: string | null;
  runId: string;
  timestamp: number;
  data: Record<string, unknown>;
}[] {
  return stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/**
 * `runnerModes`: the runner-failure and read-verb cases, which do not depend on the dialect
 * (the Postgres file skips them to keep the suite short).
 */
export function cliCases(h: JobsHarness, options: { runnerModes: boolean }): void {
  const dialectFree = options.runnerModes ? it : it.skip;
  describe(`keel job / record / actions / history on ${h.dialect}`, () => {
    afterAll(() => h.cleanup());

    it("submit → run --json streams the spec's events in order; the summary and execution land", async () => {
      const p = await h.project("cli-run");
      await addNode(p, "skills/a.md", "skill", "Say hello.");
      const submit = await keel(p, ["job", "submit", "skill-summarizer", "-n", "skills/a.md"]);
      expect(submit.exitCode).toBe(0);
      const id = submit.stdout.trim();
      expect(id).toMatch(/^d-\d{8}-\d{6}-[0-9a-f]{4}$/);
      const dup = await keel(p, ["job", "submit", "skill-summarizer", "-n", "skills/a.md"]);
      expect([dup.exitCode, dup.stdout.trim()]).toEqual([3, id]);
      expect(dup.stderr).toContain(id);
      const run = await keel(p, ["job", "run", "--json", "--command", runner("ok")]);
      expect(run.exitCode).toBe(0);
      const stream = events(run.stdout);
      expect(stream.map((e) => e.type)).toEqual([
        "run.started",
        "run.reap.started",
        "run.reap.completed",
        "job.claimed",
        "job.spawning",
        "job.callback.received",
        "job.completed",
        "run.summary",
      ]);
      for (const e of stream)
        expect(Object.keys(e).sort()).toEqual(["data", "jobId", "runId", "timestamp", "type"]);
      expect(new Set(stream.map((e) => e.runId)).size).toBe(1);
      expect(stream[0]?.runId).toMatch(/^r-\d{8}-\d{6}-[0-9a-f]{4}$/);
      expect(stream[3]).toMatchObject({
        jobId: id,
        data: { actionId: "skill-summarizer", nodeId: "skills/a.md", ttlSeconds: 180, priority: 0 },
      });
      expect(stream[6]).toMatchObject({
        jobId: id,
        data: { tokensOut: 7, model: "fake-model-1", reportPath: `.keel/reports/${id}.json` },
      });
      expect(stream[7]?.data).toMatchObject({ jobsAttempted: 1, jobsCompleted: 1, jobsFailed: 0 });
      const summary = await p.store.kysely
        .selectFrom("state_summaries")
        .selectAll()
        .executeTakeFirstOrThrow();
      expect(JSON.parse(summary.summary_json).whatItDoes).toBe(`Summarised ${id}`);
      // Nothing left: one job.skipped.
      const again = await keel(p, ["job", "run", "--json", "--command", runner("ok")]);
      expect(events(again.stdout).map((e) => e.type)).toEqual([
        "run.started",
        "run.reap.started",
        "run.reap.completed",
        "job.skipped",
        "run.summary",
      ]);
      const show = await keel(p, ["job", "show", id, "--json"]);
      expect(show.json).toMatchObject({ id, status: "completed", runner: "cli" });
      expect(show.json).not.toHaveProperty("nonce");
      const history = await keel(p, ["history", "--json", "-n", "skills/a.md"]);
      expect(JSON.parse(history.stdout)).toEqual([
        expect.objectContaining({
          jobId: id,
          status: "completed",
          extensionId: "skill-summarizer",
          runner: "cli",
          tokensOut: 7,
        }),
      ]);
      const stats = await keel(p, ["history", "stats", "--json"]);
      expect(stats.json).toMatchObject({
        perAction: [{ action: "skill-summarizer", executions: 1, failed: 0, tokensOut: 7 }],
        topNodes: [{ node: "skills/a.md", executions: 1 }],
      });
    });

    dialectFree(
      "a garbage, invalid, failing, hanging or missing runner fails that job, never the queue",
      async () => {
        const p = await h.project("cli-runners");
        const modes: [string, string, string][] = [
          ["garbage", runner("garbage"), "report-invalid"],
          ["invalid", runner("invalid"), "report-invalid"],
          ["fail", runner("fail"), "runner-error"],
          ["missing", "/nonexistent/keel-runner -p", "runner-error"],
          ["hang", runner("hang"), "timeout"],
        ];
        for (const [mode, command, reason] of modes) {
          await addNode(p, `skills/${mode}.md`, "skill", mode);
          const submitted = await keel(p, [
            "job",
            "submit",
            "skill-summarizer",
            "-n",
            `skills/${mode}.md`,
            "--ttl",
            mode === "hang" ? "2" : "120",
          ]);
          const run = await keel(p, ["job", "run", "--json", "--command", command]);
          expect([mode, run.exitCode]).toEqual([mode, 0]);
          const failed = events(run.stdout).find((e) => e.type === "job.failed");
          expect([mode, failed?.jobId, failed?.data.reason]).toEqual([
            mode,
            submitted.stdout.trim(),
            reason,
          ]);
          if (mode === "fail") expect(failed?.data.exitCode).toBe(3);
          if (mode === "missing") expect(failed?.data.exitCode).toBe(127);
        }
        const counts = await keel(p, ["job", "status", "--json"]);
        expect(counts.json).toEqual({ queued: 0, running: 0, completed: 0, failed: 5 });
      },
    );

    it("claim / record for a skill runner: exit 1 empty, 5 unknown, 4 nonce, 2 not running, 2 report-invalid", async () => {
      const p = await h.project("cli-record");
      await addNode(p, "skills/a.md", "skill", "A");
      await addNode(p, "skills/b.md", "skill", "B");
      expect((await keel(p, ["job", "claim"])).exitCode).toBe(1);
      await keel(p, ["job", "submit", "skill-summarizer", "-n", "skills/a.md"]);
      await keel(p, ["job", "submit", "skill-summarizer", "-n", "skills/b.md"]);
      const claim = await keel(p, ["job", "claim", "--json"]);
      const job = claim.json.job as { id: string; nonce: string; filePath: string };
      expect(job.nonce).toMatch(/^[0-9a-f]{64}$/);
      const report = join(p.dir, "report.json");
      writeFileSync(report, JSON.stringify(GOOD_SKILL_REPORT));
      const record = (args: string[]) => keel(p, ["record", ...args]);
      expect(
        (
          await record([
            "--id",
            "d-20990101-000000-0000",
            "--nonce",
            job.nonce,
            "--status",
            "completed",
            "--report",
            report,
          ])
        ).exitCode,
      ).toBe(5);
      expect(
        (
          await record([
            "--id",
            job.id,
            "--nonce",
            "forged",
            "--status",
            "completed",
            "--report",
            report,
          ])
        ).exitCode,
      ).toBe(4);
      expect(
        (await record(["--id", job.id, "--status", "completed", "--report", report])).exitCode,
      ).toBe(4);
      const ok = await record([
        "--id",
        job.id,
        "--nonce",
        job.nonce,
        "--status",
        "completed",
        "--report",
        report,
        "--tokens-in",
        "12",
        "--json",
      ]);
      expect([ok.exitCode, ok.json.status]).toEqual([0, "completed"]);
      expect((ok.json.events as { type: string; runId: string }[]).map((e) => e.type)).toEqual([
        "job.callback.received",
        "job.completed",
      ]);
      expect((ok.json.events as { runId: string }[])[0]?.runId).toMatch(/^r-ext-/);
      const late = await record([
        "--id",
        job.id,
        "--nonce",
        job.nonce,
        "--status",
        "completed",
        "--report",
        report,
        "--json",
      ]);
      expect([late.exitCode, (late.json.error as { code: string }).code]).toEqual([
        2,
        "JOB_NOT_RUNNING",
      ]);
      // The second job's report fails its schema: the job fails report-invalid, exit 2.
      const second = (await keel(p, ["job", "claim", "--json"])).json.job as {
        id: string;
        nonce: string;
      };
      writeFileSync(report, JSON.stringify({ whatItDoes: 1 }));
      const bad = await record([
        "--id",
        second.id,
        "--nonce",
        second.nonce,
        "--status",
        "completed",
        "--report",
        report,
        "--json",
      ]);
      expect([bad.exitCode, (bad.json.error as { code: string }).code]).toEqual([
        2,
        "JOB_REPORT_INVALID",
      ]);
      expect((await keel(p, ["job", "status", second.id])).stdout.trim()).toBe(
        "failed (report-invalid)",
      );
      // Cancel of a terminal job: 2.
      expect((await keel(p, ["job", "cancel", second.id])).exitCode).toBe(2);
    });

    dialectFree(
      "a worker stopped (SIGTERM's path) finishes and records its jobs in flight, claims no more",
      async () => {
        const p = await h.project("worker");
        for (const name of ["a", "b", "c", "d"])
          await addNode(p, `skills/${name}.md`, "skill", name);
        for (const name of ["a", "b", "c", "d"])
          await keel(p, ["job", "submit", "skill-summarizer", "-n", `skills/${name}.md`]);
        const ctx = await openJobsContext(p.store);
        const stop = new AbortController();
        const seen: JobEvent[] = [];
        const summary = await runWorker(ctx, {
          runner: cliRunner({ command: runner("slow 400") }),
          concurrency: 2,
          pollMs: 50,
          stop: stop.signal,
          emit: (event) => {
            seen.push(event);
            if (
              event.type === "job.spawning" &&
              seen.filter((e) => e.type === "job.spawning").length === 2
            )
              stop.abort();
          },
        });
        expect(summary).toMatchObject({ jobsCompleted: 2, jobsFailed: 0 });
        expect(await countJobs(ctx)).toEqual({ queued: 2, running: 0, completed: 2, failed: 0 });
        expect(seen.at(-1)?.type).toBe("run.summary");
      },
    );

    dialectFree("actions list/show, job list/preview, prune --orphan-files", async () => {
      const p = await h.project("cli-misc");
      await addNode(p, "notes/n.md", "note", "Note.");
      await addNode(p, "skills/s.md", "skill", "Skill.");
      const list = await keel(p, ["actions", "list", "--json"]);
      expect((list.json.actions as { id: string }[]).map((a) => a.id)).toEqual([
        "agent-summarizer",
        "command-summarizer",
        "hook-summarizer",
        "note-summarizer",
        "skill-summarizer",
      ]);
      const show = await keel(p, ["actions", "show", "note-summarizer", "--json"]);
      expect(show.json).toMatchObject({
        manifest: { preconditions: { kinds: ["note"] }, expectedDurationSeconds: 60 },
      });
      expect((await keel(p, ["actions", "show", "nope"])).exitCode).toBe(5);
      // A plugin's actions: a valid one loads; one interpolating user text outside <user-content> is refused.
      const plugin = join(p.keelDir, "plugins", "acme");
      mkdirSync(plugin, { recursive: true });
      writeFileSync(
        join(plugin, "plugin.json"),
        JSON.stringify({
          id: "acme",
          version: "1.0.0",
          specCompat: "^0.1.0",
          extensions: ["review.json", "bad.json"],
        }),
      );
      const manifest = {
        kind: "action",
        id: "acme-review",
        version: "1.0.0",
        description: "Reviews.",
        expectedDurationSeconds: 5,
        promptTemplate: "Review:\n{{node}}\n",
      };
      writeFileSync(join(plugin, "review.json"), JSON.stringify(manifest));
      writeFileSync(
        join(plugin, "bad.json"),
        JSON.stringify({ ...manifest, id: "acme-bad", promptTemplate: "Title: {{title}}" }),
      );
      const withPlugin = await keel(p, ["actions", "list", "--json"]);
      expect(
        (withPlugin.json.actions as { id: string; source: string }[]).find(
          (a) => a.id === "acme-review",
        )?.source,
      ).toBe("acme");
      expect(withPlugin.json.failures).toEqual([
        expect.objectContaining({ source: "acme", message: expect.stringContaining("{{title}}") }),
      ]);
      const all = await keel(p, ["job", "submit", "note-summarizer", "--all", "--json"]);
      expect(all.json).toMatchObject({ nodes: 1, queued: 1, refused: 0 });
      const again = await keel(p, ["job", "submit", "note-summarizer", "--all", "--json"]);
      expect(again.json).toMatchObject({ nodes: 1, queued: 0, refused: 1 });
      const jobs = JSON.parse((await keel(p, ["job", "list", "--json"])).stdout) as {
        id: string;
      }[];
      expect(jobs).toHaveLength(1);
      const preview = await keel(p, ["job", "preview", jobs[0]?.id ?? ""]);
      expect(preview.stdout.startsWith("You are operating inside skill-map")).toBe(true);
      expect(preview.stdout).toContain('<user-content id="notes/n.md">');
      const orphan = join(p.keelDir, "jobs", "d-20000101-000000-0000.md");
      writeFileSync(orphan, "left over");
      const prune = await keel(p, ["job", "prune", "--orphan-files", "--json"]);
      expect(prune.json.removedFiles).toEqual([orphan]);
      expect(existsSync(orphan)).toBe(false);
      // A running job past its TTL: doctor warns and names `keel job reap`, which clears it.
      const claimed = (await keel(p, ["job", "claim", "--json"])).json.job as { id: string };
      await p.store.kysely
        .updateTable("state_jobs")
        .set({ expires_at: 1 })
        .where("id", "=", claimed.id)
        .execute();
      const doctor = await keel(p, ["doctor", "--json"]);
      const stuck = (
        doctor.json.checks as { id: string; status: string; remedy: string | null }[]
      ).find((c) => c.id === "stuck-jobs");
      expect(stuck).toMatchObject({
        status: "warn",
        remedy: expect.stringContaining("`keel job reap`"),
      });
      expect((await keel(p, ["job", "reap", "--json"])).json).toMatchObject({
        reapedIds: [claimed.id],
      });
      const healthy = await keel(p, ["doctor", "--json"]);
      expect(
        (healthy.json.checks as { id: string; status: string }[]).find((c) => c.id === "stuck-jobs")
          ?.status,
      ).toBe("ok");
    });
  });
}

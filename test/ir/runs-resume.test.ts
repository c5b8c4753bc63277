import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RunDocumentStore, RunStore, SqliteSaver } from "../../src/checkpoint/index.js";
import { graphHash, loads } from "../../src/ir/index.js";
import { openStore, resolveStoreLocation } from "../../src/store/index.js";
import { keelInProcess } from "../store/cli-in-process.js";
import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";

const root = new URL("../../", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "keel-runs-resume-"));
const db = join(dir, "runs.db");
const refundInput = JSON.stringify({
  customer_id: "c1",
  amount: 120.5,
  fraud_score: 0.1,
  mail_failed: 0,
  approved: false,
});

interface Cli {
  code: number | null;
  out: Record<string, unknown> & {
    error?: { code: string; message: string; details: Record<string, unknown> };
  };
  stderr: string;
}

/**
 * The refund example, to be written somewhere else: its user-code nodes (`./kinds.mjs:…`,
 * relative to the document) point at examples/ instead.
 */
function refundCopy() {
  const doc = JSON.parse(readFileSync(join(root, "examples/refund-approval.json"), "utf8"));
  for (const node of doc.nodes as { kind: string }[]) {
    if (node.kind.startsWith("./")) node.kind = join(root, "examples", node.kind);
  }
  return doc;
}

/** Runs the real CLI in process (its own program) with --json on the test database (or `--db` given). */
async function keel(...args: string[]): Promise<Cli> {
  const result = await keelInProcess(
    [...args, ...(args.includes("--db") ? [] : ["--db", db]), "--json"],
    { cwd: root },
  );
  if (!result.stdout.trim().startsWith("{")) {
    throw new Error(`not JSON (exit ${result.exitCode}): ${result.stdout}\n${result.stderr}`);
  }
  return { code: result.exitCode, out: result.json as Cli["out"], stderr: result.stderr };
}

function pathsOf(out: Cli["out"]): string[] {
  return (out.transitions as { from: string; to: string }[]).map((t) => `${t.from}>${t.to}`);
}

describe("keel runs resume|respond", { timeout: 120_000 }, () => {
  it("keel run records the document; respond answers the interrupt by run id", async () => {
    const refund = join(root, "examples/refund-approval.json");
    const paused = await keel("run", refund, "--input", refundInput);
    expect(paused.code).toBe(0);
    expect(paused.out).toMatchObject({
      ok: true,
      status: "interrupted",
      run_status: "paused",
      document: refund,
      run_id: expect.any(String),
    });
    const runId = paused.out.run_id as string;

    // A run waiting for an answer is not resumed blindly: it would only ask again.
    const blind = await keel("runs", "resume", runId);
    expect(blind.code).toBe(2);
    expect(blind.out.error?.code).toBe("RUN_AWAITING_RESPONSE");

    const bad = await keel("runs", "respond", runId, "--value", "{nope");
    expect(bad.code).toBe(2);
    expect(bad.out.error?.code).toBe("INVALID_ARGUMENT");

    // The interrupt asks for refunds:approve (requested_capability): without it, no answer.
    const unauthorised = await keel("runs", "respond", runId, "--value", '{"approved":true}');
    expect(unauthorised.code).toBe(2);
    expect(unauthorised.out.error?.code).toBe("CAPABILITY_MISSING");
    expect(unauthorised.out.error?.message).toContain("refunds:approve");
    expect((await keel("runs", "resume", runId)).out.error?.code).toBe("RUN_AWAITING_RESPONSE");

    const done = await keel(
      "runs",
      "respond",
      runId,
      "--value",
      '{"approved":true}',
      "--capability",
      "refunds:approve",
    );
    expect(done.code).toBe(0);
    expect(done.out).toMatchObject({
      ok: true,
      run_id: runId,
      thread_id: paused.out.thread_id,
      status: "completed",
      run_status: "succeeded",
      state: { approved: true, amount: 120.5 },
    });
    expect(pathsOf(done.out)).toEqual([
      "receive>__ir_wait__",
      "__ir_wait__>manual_review",
      "manual_review>auto_refund",
      "auto_refund>notify",
      "notify>done",
      "done>__end__",
    ]);

    // The run record is the same one, now finished.
    const shown = await keel("runs", "show", paused.out.thread_id as string);
    expect((shown.out.runs as { id: string; status: string }[]).map((r) => r.status)).toEqual([
      "succeeded",
    ]);

    for (const again of [
      await keel("runs", "resume", runId),
      await keel("runs", "respond", runId, "--value", '{"approved":false}'),
    ]) {
      expect(again.code).toBe(2);
      expect(again.out.error?.code).toBe("RUN_INVALID_TRANSITION");
      expect(again.out.error?.message).toContain("already finished (succeeded)");
    }
  });

  it("an unknown run id is RUN_NOT_FOUND, exit 5", async () => {
    for (const missing of [
      await keel("runs", "resume", "no-such-run"),
      await keel("runs", "respond", "no-such-run", "--value", "true"),
    ]) {
      expect(missing.code).toBe(5);
      expect(missing.out.error?.code).toBe("RUN_NOT_FOUND");
    }
  });

  it("refuses a changed document (IR_GRAPH_CHANGED) until a migrate entry allows it", async () => {
    const doc = refundCopy();
    const file = join(dir, "refund.json");
    // The copy has no packs/ folder beside it, so it mounts no governance pack.
    doc.governance = [];
    writeFileSync(file, JSON.stringify(doc));
    const paused = await keel("run", file, "--input", refundInput);
    expect(paused.out.status).toBe("interrupted");
    const runId = paused.out.run_id as string;
    const fromHash = paused.out.graph_hash as string;

    doc.nodes.push({ id: "audit", kind: "echo" });
    writeFileSync(file, JSON.stringify(doc));
    const refused = await keel("runs", "respond", runId, "--value", '{"approved":false}');
    expect(refused.code).toBe(2);
    expect(refused.out.error?.code).toBe("IR_GRAPH_CHANGED");
    expect(refused.out.error?.details).toMatchObject({ from_hash: fromHash });
    const toHash = refused.out.error?.details.to_hash as string;
    // The refusal left the run untouched: still paused at its interrupt.
    const shown = await keel("runs", "show", paused.out.thread_id as string);
    expect((shown.out.runs as { status: string }[])[0]?.status).toBe("paused");

    doc.migrate = [{ from_hash: fromHash, to_hash: toHash }];
    writeFileSync(file, JSON.stringify(doc));
    const migrated = await keel(
      "runs",
      "respond",
      runId,
      "--value",
      '{"approved":false}',
      "--capability",
      "refunds:approve",
    );
    expect(migrated.code).toBe(0);
    expect(migrated.out).toMatchObject({ status: "completed", run_status: "succeeded" });
    expect(pathsOf(migrated.out).at(-1)).toBe("manual_review>__end__");
  });

  it("a missing document is NOT_FOUND, exit 5", async () => {
    const file = join(dir, "gone.json");
    writeFileSync(file, JSON.stringify({ ...refundCopy(), governance: [] }));
    const paused = await keel("run", file, "--input", refundInput);
    expect(paused.out.status).toBe("interrupted");
    rmSync(file);
    const missing = await keel("runs", "respond", paused.out.run_id as string, "--value", "true");
    expect(missing.code).toBe(5);
    expect(missing.out.error?.code).toBe("NOT_FOUND");
  });

  it("resume retries a failed run from its checkpoint; respond refuses a run waiting for nothing", async () => {
    const marker = join(dir, "payments-down");
    writeFileSync(
      join(dir, "flaky.mjs"),
      `import { existsSync } from "node:fs";
export function charge() {
  if (existsSync(${JSON.stringify(marker)})) throw new Error("payment service down");
  return { charged: true };
}
`,
    );
    const file = join(dir, "charge.json");
    writeFileSync(
      file,
      JSON.stringify({
        ir_version: "1.0.0",
        id: "graph:charge",
        nodes: [
          { id: "receive", kind: "echo" },
          { id: "charge", kind: "./flaky.mjs:charge" },
          { id: "done", kind: "halt" },
        ],
        state_schema: { charged: "bool" },
      }),
    );
    writeFileSync(marker, "");
    const failed = await keel("run", file, "--input", '{"charged":false}');
    expect(failed.code).toBe(2);
    expect(failed.out.error?.message).toContain("payment service down");
    const runId = failed.out.error?.details.run_id as string;
    expect(runId).toEqual(expect.any(String));
    expect(failed.out.error?.message).toContain(`keel runs resume ${runId}`);

    const answer = await keel("runs", "respond", runId, "--value", "true");
    expect(answer.code).toBe(2);
    expect(answer.out.error?.code).toBe("RUN_NOT_AWAITING_RESPONSE");

    const stillDown = await keel("runs", "resume", runId);
    expect(stillDown.code).toBe(2);
    expect(stillDown.out.error?.details.run_id).toBe(runId);

    rmSync(marker);
    const retried = await keel("runs", "resume", runId);
    expect(retried.code).toBe(0);
    expect(retried.out).toMatchObject({
      run_id: runId,
      status: "completed",
      run_status: "succeeded",
      state: { charged: true },
    });
    expect(pathsOf(retried.out)).toContain("charge>done");
  });

  it("resume starts a run that never started from its recorded input", async () => {
    const file = join(dir, "count.json");
    const doc = {
      ir_version: "1.0.0",
      id: "graph:count",
      nodes: [
        { id: "a", kind: "echo" },
        { id: "done", kind: "halt" },
      ],
      state_schema: { n: "int" },
    };
    writeFileSync(file, JSON.stringify(doc));
    const hash = graphHash(loads(JSON.stringify(doc)));
    const earlier = await keel("run", file, "--input", '{"n":1}', "--thread", "t-count");
    expect(earlier.out).toMatchObject({ run_status: "succeeded", state: { n: 1 } });
    // A process that recorded a second run on the thread and its document, then died before
    // executing it: the thread's checkpoint is the earlier run's, not this one's.
    const store = await openStore({ location: resolveStoreLocation({ db }) });
    let runId: string;
    try {
      const saver = SqliteSaver.fromStore(store);
      const run = await new RunStore(saver).create({ graphId: doc.id, threadId: "t-count" });
      await new RunDocumentStore(saver).record({
        runId: run.id,
        documentPath: file,
        documentId: doc.id,
        graphHash: hash,
        input: { n: 7 },
        packsDir: null,
      });
      runId = run.id;
    } finally {
      await store.close();
    }
    const resumed = await keel("runs", "resume", runId);
    expect(resumed.code, JSON.stringify(resumed.out)).toBe(0);
    expect(resumed.out).toMatchObject({
      run_id: runId,
      status: "completed",
      run_status: "succeeded",
      state: { n: 7 },
    });
    // The thread's state carries the earlier run's transitions too; the output lists this run's.
    expect(pathsOf(resumed.out)).toEqual(["a>done", "done>__end__"]);
  });

  it("a run whose process died (still marked running, no lease) can be answered", async () => {
    const paused = await keel(
      "run",
      join(root, "examples/refund-approval.json"),
      "--input",
      refundInput,
    );
    const runId = paused.out.run_id as string;
    // What a crash mid-run leaves: the record still says running, and no live lease.
    const store = await openStore({ location: resolveStoreLocation({ db }) });
    try {
      const saver = SqliteSaver.fromStore(store);
      await saver.sql.run("UPDATE state_runs SET status = 'running' WHERE id = ?", [runId]);
    } finally {
      await store.close();
    }
    expect((await keel("runs", "resume", runId)).out.error?.code).toBe("RUN_AWAITING_RESPONSE");
    const done = await keel(
      "runs",
      "respond",
      runId,
      "--value",
      '{"approved":true}',
      "--capability",
      "refunds:approve",
    );
    expect(done.out).toMatchObject({ run_id: runId, run_status: "succeeded", status: "completed" });
  });

  it("works the same on Postgres through --db", async () => {
    if (!(await postgresAvailable())) return;
    const database = await createMigratedDatabase("runs_resume");
    try {
      const refund = join(root, "examples/refund-approval.json");
      const paused = await keel("run", refund, "--input", refundInput, "--db", database.url);
      expect(paused.code, JSON.stringify(paused.out)).toBe(0);
      expect(paused.out).toMatchObject({ status: "interrupted", run_status: "paused" });
      const runId = paused.out.run_id as string;
      const done = await keel(
        "runs",
        "respond",
        runId,
        "--value",
        '{"approved":true}',
        "--capability",
        "refunds:approve",
        "--db",
        database.url,
      );
      expect(done.code, JSON.stringify(done.out)).toBe(0);
      expect(done.out).toMatchObject({
        run_id: runId,
        status: "completed",
        run_status: "succeeded",
      });
      const again = await keel("runs", "resume", runId, "--db", database.url);
      expect(again.out.error?.code).toBe("RUN_INVALID_TRANSITION");
      expect((await keel("runs", "resume", "no-such-run", "--db", database.url)).code).toBe(5);
    } finally {
      await database.drop();
    }
  });
});

/**
 * `keel runs list|show|history|prune|delete`, run in-process (the program `keel` builds) against
 * a real SQLite file: JSON shapes, human tables, exit codes of the error paths.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newCheckpointId, RunStore, SqliteSaver } from "../../src/checkpoint/index.js";
import { buildProgram } from "../../src/cli/program.js";
import { Annotation, END, START, StateGraph } from "../../src/index.js";
import { sqliteTestStore, type TestStore } from "./support/databases.js";

let test: TestStore;

async function keel(
  ...args: string[]
): Promise<{ stdout: string; stderr: string; exitCode: number; json: Record<string, unknown> }> {
  const out: string[] = [];
  const err: string[] = [];
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string) =>
    out.push(String(chunk)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) =>
    err.push(String(chunk)) > 0) as typeof process.stderr.write;
  process.exitCode = 0;
  try {
    await buildProgram().parseAsync(["node", "keel", ...args, "--db", test.db]);
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
  }
  const exitCode = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  const stdout = out.join("");
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(stdout.trim().split("\n").pop() ?? "{}");
  } catch {
    // human output
  }
  return { stdout, stderr: err.join(""), exitCode, json };
}

describe("keel runs", () => {
  beforeAll(async () => {
    test = await sqliteTestStore();
    const saver = SqliteSaver.fromStore(test.store);
    const State = Annotation.Root({
      log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({ log: ["b"] }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", END)
      .compile({ checkpointer: saver });
    const runs = new RunStore(saver);
    for (const threadId of ["alpha", "beta", "gamma"]) {
      const run = await runs.create({ threadId, graphId: "ab" });
      for (let round = 0; round < 4; round++) {
        const again = round === 0 ? run : await runs.create({ threadId });
        await runs.execute(again.id, (config) => graph.invoke({ log: [`r${round}`] }, config));
      }
    }
  });
  afterAll(() => test.cleanup());

  it("list pages through threads, newest first, with their latest run", async () => {
    const page = await keel("runs", "list", "--limit", "2", "--json");
    expect(page.exitCode).toBe(0);
    const threads = page.json.threads as Array<{
      threadId: string;
      checkpointCount: number | null;
      latestCheckpointId: string | null;
      latestRun: { status: string };
    }>;
    expect(threads.map((t) => t.threadId)).toEqual(["gamma", "beta"]);
    // A listing does not count checkpoints (that would read every checkpoint of every thread).
    expect(threads[0]?.checkpointCount).toBeNull();
    expect(threads[0]?.latestCheckpointId).toEqual(expect.any(String));
    expect(threads[0]?.latestRun.status).toBe("succeeded");
    const next = await keel(
      "runs",
      "list",
      "--limit",
      "2",
      "--after",
      String(page.json.next),
      "--json",
    );
    expect((next.json.threads as Array<{ threadId: string }>).map((t) => t.threadId)).toEqual([
      "alpha",
    ]);
    const human = await keel("runs", "list");
    expect(human.stdout).toMatch(/thread\s+run status\s+latest checkpoint/);
    expect(human.stdout).toContain("alpha");
  });

  it("show prints the latest state and the runs; history lists checkpoints", async () => {
    const show = await keel("runs", "show", "alpha", "--json");
    expect(show.exitCode).toBe(0);
    expect((show.json.state as { values: unknown }).values).toEqual({
      log: ["r0", "a", "b", "r1", "a", "b", "r2", "a", "b", "r3", "a", "b"],
    });
    expect(show.json.runs as unknown[]).toHaveLength(4);
    const history = await keel("runs", "history", "alpha", "--limit", "3", "--json");
    const checkpoints = history.json.checkpoints as Array<{
      step: number;
      source: string;
      wrote: string[];
    }>;
    expect(checkpoints.map((c) => [c.step, c.source])).toEqual([
      [14, "loop"],
      [13, "loop"],
      [12, "loop"],
    ]);
    expect(checkpoints[0]?.wrote).toEqual(["b"]);
  });

  it("cancel records a pending run canceled; a finished run refuses", async () => {
    const runs = new RunStore(SqliteSaver.fromStore(test.store));
    const pending = await runs.create({ threadId: "alpha" });
    const canceled = await keel("runs", "cancel", pending.id, "--reason", "not needed", "--json");
    expect(canceled.exitCode).toBe(0);
    expect(canceled.json).toMatchObject({
      ok: true,
      run: { id: pending.id, status: "canceled", cancelReason: "not needed" },
    });
    const again = await keel("runs", "cancel", pending.id, "--json");
    expect(again.exitCode).toBe(2);
    expect(again.json).toMatchObject({ ok: false, error: { code: "RUN_INVALID_TRANSITION" } });
    expect((await keel("runs", "cancel", "no-such-run", "--json")).exitCode).toBe(5);
  });

  it("prune keeps the latest state; delete removes a thread; errors have their exit codes", async () => {
    const pruned = await keel("runs", "prune", "alpha", "--keep-last", "2", "--json");
    expect(pruned.exitCode).toBe(0);
    expect(
      (pruned.json.results as Array<{ checkpointsDeleted: number }>)[0]?.checkpointsDeleted,
    ).toBe(14);
    const after = await keel("runs", "show", "alpha", "--json");
    expect((after.json.state as { values: { log: string[] } }).values.log).toHaveLength(12);
    const all = await keel("runs", "prune", "--all", "--older-than", "1d", "--json");
    expect(all.exitCode).toBe(0);
    expect((await keel("runs", "prune", "--keep-last", "1", "--json")).exitCode).toBe(2);
    expect(
      (await keel("runs", "prune", "alpha", "--older-than", "soon", "--json")).json,
    ).toMatchObject({
      ok: false,
      error: { code: "INVALID_ARGUMENT" },
    });

    const refused = await keel("runs", "delete", "beta", "--json");
    expect(refused.exitCode).toBe(2);
    expect(refused.json).toMatchObject({ ok: false, error: { code: "CONFIRMATION_REQUIRED" } });
    const deleted = await keel("runs", "delete", "beta", "--force", "--json");
    expect(deleted.json).toMatchObject({
      ok: true,
      threadId: "beta",
      checkpointsDeleted: 16,
      runsDeleted: 4,
    });
    const gone = await keel("runs", "show", "beta", "--json");
    expect(gone.exitCode).toBe(5);
    expect(gone.json).toMatchObject({ ok: false, error: { code: "THREAD_NOT_FOUND" } });
    expect((await keel("runs", "history", "nope", "--json")).exitCode).toBe(5);
    // A thread written by a newer Keel is left whole by --all (and reported); named, it fails.
    const native = test.store.native;
    if (native.dialect === "sqlite")
      native.database.exec(
        "UPDATE state_checkpoints SET format_version = 99 WHERE thread_id = 'gamma'",
      );
    // A thread whose row is damaged (a corrupted value map) is left whole and reported too.
    const saver = SqliteSaver.fromStore(test.store);
    for (const thread of ["delta", "epsilon"]) {
      let config = { configurable: { thread_id: thread } } as Parameters<typeof saver.put>[0];
      for (let step = 0; step < 4; step++)
        config = await saver.put(
          config,
          {
            v: 1,
            id: newCheckpointId(),
            ts: new Date().toISOString(),
            channel_values: { step },
            channel_versions: { step: step + 1 },
            versions_seen: {},
          },
          { source: "loop", step, parents: {}, writes: null },
          { step: step + 1 },
        );
    }
    if (native.dialect === "sqlite")
      native.database.exec(
        "UPDATE state_checkpoints SET channel_seqs_json = channel_seqs_json || ' ' WHERE thread_id = 'delta' AND step = 1",
      );
    const count = (thread: string) =>
      native.dialect === "sqlite"
        ? (
            native.database
              .prepare("SELECT COUNT(*) AS n FROM state_checkpoints WHERE thread_id = ?")
              .get(thread) as { n: number }
          ).n
        : -1;
    const mixed = await keel("runs", "prune", "--all", "--keep-last", "1", "--json");
    // Every readable thread is pruned; the unreadable ones are reported and the exit code says so.
    expect(mixed.exitCode).toBe(2);
    expect(mixed.json.ok).toBe(false);
    expect(
      (mixed.json.skipped as Array<{ threadId: string }>).map((s) => s.threadId).sort(),
    ).toEqual(["delta", "gamma"]);
    expect(mixed.json.skipped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ threadId: "gamma", code: "CHECKPOINT_FORMAT" }),
        expect.objectContaining({ threadId: "delta", code: "CHECKPOINT_CORRUPT" }),
      ]),
    );
    expect(
      (mixed.json.results as Array<{ threadId: string }>).map((r) => r.threadId).sort(),
    ).toEqual(["alpha", "epsilon"]);
    expect(count("delta")).toBe(4);
    expect(count("epsilon")).toBe(1);
    const human = await keel("runs", "prune", "--all", "--keep-last", "1");
    expect(human.exitCode).toBe(2);
    expect(human.stdout).toMatch(/not pruned: delta: /);
    expect(human.stdout).toMatch(/not pruned: gamma: /);
    expect((await keel("runs", "prune", "gamma", "--keep-last", "1", "--json")).json).toMatchObject(
      { ok: false, error: { code: "CHECKPOINT_FORMAT" } },
    );
  });
});

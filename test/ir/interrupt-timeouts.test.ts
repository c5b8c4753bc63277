/**
 * Interrupt timeouts (seed 000 InterruptAction `timeout` / `on_timeout`): a run paused at an
 * interrupt gets its deadline as its wake time; `keel runs list|show` say when it times out and
 * flag it once it has; `keel runs resume` then takes `on_timeout` instead of asking again, an
 * answer after the deadline is too late (on_timeout is taken and the output says so), and
 * `keel runs wake` continues every run past its wake time.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { keelJson, pathsOf } from "./cli-support.js";

const dir = mkdtempSync(join(tmpdir(), "keel-ir-timeouts-"));
const db = join(dir, "runs.db");
const keel = (...args: string[]) => keelJson([...args, "--db", db]);

/** ask → (interrupt with `timeout`) → work → end; on timeout → expired → end. */
function document(name: string, timeout: number | string, onTimeout = "goto:expired"): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    JSON.stringify({
      ir_version: "1.0.0",
      id: `graph:${name}`,
      nodes: [
        { id: "ask", kind: "echo" },
        { id: "work", kind: "echo" },
        { id: "expired", kind: "echo" },
        { id: "end", kind: "halt" },
      ],
      rules: [
        {
          id: "rule.ask",
          when: "(node-id ask)",
          // biome-ignore lint/suspicious/noThenProperty: `then` is the IR's wire name.
          then: [{ kind: "interrupt", prompt: "ok?", timeout, on_timeout: onTimeout }],
        },
        // biome-ignore lint/suspicious/noThenProperty: `then` is the IR's wire name.
        { id: "rule.work", when: "(node-id work)", then: [{ kind: "goto", target: "end" }] },
      ],
      state_schema: { ok: "bool" },
    }),
  );
  return path;
}

interface RunJson {
  id: string;
  status: string;
  nextWakeAt: number | null;
  timedOut: boolean;
}

describe("interrupt timeouts", { timeout: 180_000 }, () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("before the deadline: list/show give the wake time, resume refuses and names the deadline", async () => {
    const paused = await keel("run", document("long.json", "PT1H"), "--input", '{"ok":false}');
    expect(paused.code).toBe(0);
    const deadline = (paused.out.interrupt as { deadline_at: number }).deadline_at;
    expect(deadline).toBeGreaterThan(Date.now() + 3_500_000);

    const shown = await keel("runs", "show", paused.out.thread_id as string);
    expect((shown.out.runs as RunJson[])[0]).toMatchObject({
      status: "paused",
      nextWakeAt: deadline,
      timedOut: false,
    });
    const resumed = await keel("runs", "resume", paused.out.run_id as string);
    expect(resumed.code).toBe(2);
    expect(resumed.out.error?.code).toBe("RUN_AWAITING_RESPONSE");
    expect(resumed.out.error?.message).toContain(new Date(deadline).toISOString());

    // An answer in time is taken, and the wake time is cleared.
    const answered = await keel(
      "runs",
      "respond",
      paused.out.run_id as string,
      "--value",
      '{"ok":true}',
    );
    expect(answered.out).toMatchObject({ status: "completed", state: { ok: true } });
    expect(answered.out.timed_out).toBeUndefined();
    expect(pathsOf(answered.out)).toContain("__ir_wait__>work");
    const after = await keel("runs", "show", paused.out.thread_id as string);
    expect((after.out.runs as RunJson[])[0]).toMatchObject({
      status: "succeeded",
      nextWakeAt: null,
    });
  });

  it("after the deadline: flagged by list/show; resume takes on_timeout; a late answer is refused by the wait", async () => {
    const doc = document("short.json", 1);
    const first = await keel("run", doc, "--input", '{"ok":false}');
    const second = await keel("run", doc, "--input", '{"ok":false}');
    const halting = await keel("run", document("halt.json", 1, "halt"), "--input", '{"ok":false}');
    for (const run of [first, second, halting]) expect(run.out.run_status).toBe("paused");
    // The CLI runs in this process (test/support/cli.ts): the clock moves past the 1 s deadlines
    // instead of the test waiting for them.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1100, shouldAdvanceTime: true });

    const listed = await keel("runs", "list");
    const latest = (listed.out.threads as { threadId: string; latestRun: RunJson }[]).find(
      (t) => t.threadId === first.out.thread_id,
    )?.latestRun;
    expect(latest).toMatchObject({ status: "paused", timedOut: true });

    const resumed = await keel("runs", "resume", first.out.run_id as string);
    expect(resumed.code).toBe(0);
    expect(resumed.out).toMatchObject({
      status: "completed",
      run_status: "succeeded",
      timed_out: { node: "ask", rule: "rule.ask", on_timeout: "goto:expired" },
    });
    expect(pathsOf(resumed.out)).toEqual([
      "ask>__ir_wait__",
      "__ir_wait__>expired",
      "expired>end",
      "end>__end__",
    ]);

    const late = await keel(
      "runs",
      "respond",
      second.out.run_id as string,
      "--value",
      '{"ok":true}',
    );
    expect(late.code).toBe(0);
    expect(late.out).toMatchObject({
      timed_out: { on_timeout: "goto:expired" },
      state: { ok: false },
    });

    // `keel runs wake` continues whatever else is due: here the run whose on_timeout is halt.
    const woken = await keel("runs", "wake");
    expect(woken.code).toBe(0);
    expect(woken.out.runs).toEqual([
      { runId: halting.out.run_id, threadId: halting.out.thread_id, status: "succeeded" },
    ]);
    const again = await keel("runs", "wake");
    expect(again.out.runs).toEqual([]);
  });
});

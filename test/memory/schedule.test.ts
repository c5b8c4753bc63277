import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  DecisionMemory,
  type MaintenanceReport,
  runMaintenanceSchedule,
} from "../../src/memory/index.js";
import { sqliteRuntimeHarness } from "../runtime/support/harness.js";
import { keelInProcess } from "../store/cli-in-process.js";

const harness = sqliteRuntimeHarness();
afterAll(() => harness.cleanup());

describe("maintenance on a schedule (keel worker)", () => {
  it("runs a pass at start and every interval until stopped; a failed pass does not end it", async () => {
    const store = await harness.open("schedule");
    let now = Date.now();
    const memory = new DecisionMemory(store, { clock: { now: () => now } });
    await memory.record({
      title: "Use PostgreSQL",
      target: "database",
      rationale: "ACID transactions and JSONB",
    });
    now += 21 * 86_400_000; // three idle weeks: the first pass decays the record
    const stop = new AbortController();
    const reports: MaintenanceReport[] = [];
    const errors: unknown[] = [];
    let calls = 0;
    const flaky = new Proxy(memory, {
      get(target, name, receiver) {
        if (name !== "maintain") return Reflect.get(target, name, receiver);
        return () => {
          calls++;
          if (calls === 2) return Promise.reject(new Error("database busy"));
          if (calls === 4) stop.abort();
          return target.maintain();
        };
      },
    });
    const passes = await runMaintenanceSchedule(flaky, {
      everyMs: 5,
      signal: stop.signal,
      onPass: (report) => reports.push(report),
      onError: (error) => errors.push(error),
    });
    expect(passes).toBe(3);
    expect(reports[0]?.decayed).toBe(1);
    // A week is never counted twice: later passes find nothing more to decay.
    expect(reports.slice(1).map((r) => r.decayed)).toEqual([0, 0]);
    expect(errors).toHaveLength(1);
    expect((await memory.list())[0]?.confidence).toBeCloseTo(0.95, 5);
  });

  it("keel worker refuses an interval that is not a duration, before starting", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-worker-maintain-"));
    try {
      const result = await keelInProcess([
        ...["worker", "--maintain-every", "soon"],
        ...["--db", join(dir, "keel.db"), "--json"],
      ]);
      expect(result.exitCode).not.toBe(0);
      expect(result.json).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

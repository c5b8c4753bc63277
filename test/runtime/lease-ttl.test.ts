import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { isKeelError } from "../../src/core/index.js";
import { GovernedRuntime, runtimeDb, ToolRegistry } from "../../src/runtime/index.js";
import type { Store } from "../../src/store/index.js";
import { ManualClock } from "./support/clock.js";
import { oneCallGraph } from "./support/governed.js";
import { sqliteRuntimeHarness } from "./support/harness.js";
import { openSpec } from "./support/tools.js";

const harness = sqliteRuntimeHarness();
afterAll(() => harness.cleanup());

/** The leases held while the tool runs: its own call's, and its run's thread's. */
interface SeenLeases {
  call: number | null;
  thread: number | null;
  /** Wall-clock bounds around the run (the run store's lease uses the wall clock). */
  before: number;
}

function leaseWatchingTools(store: Store, seen: Partial<SeenLeases>): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(
    openSpec("watch", "write", "reads the leases held while it runs"),
    async (_input, context) => {
      const call = await runtimeDb(store)
        .selectFrom("state_tool_calls")
        .select("lease_expires_at")
        .where("id", "=", context.toolCallId)
        .executeTakeFirstOrThrow();
      const thread = await sql<{ lease_expires_at: number | string | null }>`
      SELECT lease_expires_at FROM state_threads WHERE lease_owner IS NOT NULL`.execute(
        store.kysely,
      );
      seen.call = call.lease_expires_at === null ? null : Number(call.lease_expires_at);
      const held = thread.rows[0]?.lease_expires_at;
      seen.thread = held === undefined || held === null ? null : Number(held);
      return {};
    },
  );
  return tools;
}

describe("GovernedRuntime leaseTtlMs", () => {
  it("sets the tool-call lease and the run's thread lease", async () => {
    const store = await harness.open("lease_ttl");
    const clock = new ManualClock();
    const seen: Partial<SeenLeases> = {};
    const hour = 3_600_000;
    const runtime = new GovernedRuntime({
      store,
      tools: leaseWatchingTools(store, seen),
      clock,
      leaseTtlMs: hour,
    });
    const graph = oneCallGraph(runtime, "test.watch", () => ({}));
    const before = Date.now();
    const done = await runtime.start({ graph, input: {}, autonomy: "A4", risk: "low" });
    const after = Date.now();
    expect(done.run.status).toBe("succeeded");
    // The ledger's lease is on the runtime's clock; the run store's on the wall clock.
    expect(seen.call).toBe(clock.now() + hour);
    expect(seen.thread).toBeGreaterThanOrEqual(before + hour);
    expect(seen.thread).toBeLessThanOrEqual(after + hour);
  });

  it("keeps the 30 s default when not given", async () => {
    const store = await harness.open("lease_default");
    const clock = new ManualClock();
    const seen: Partial<SeenLeases> = {};
    const runtime = new GovernedRuntime({ store, tools: leaseWatchingTools(store, seen), clock });
    const graph = oneCallGraph(runtime, "test.watch", () => ({}));
    const before = Date.now();
    await runtime.start({ graph, input: {}, autonomy: "A4", risk: "low" });
    const after = Date.now();
    expect(seen.call).toBe(clock.now() + 30_000);
    expect(seen.thread).toBeGreaterThanOrEqual(before + 30_000);
    expect(seen.thread).toBeLessThanOrEqual(after + 30_000);
  });

  it.each([0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    "refuses leaseTtlMs %s with INVALID_ARGUMENT",
    async (value) => {
      const store = await harness.open("lease_bad");
      let error: unknown;
      try {
        new GovernedRuntime({ store, tools: new ToolRegistry(), leaseTtlMs: value });
      } catch (thrown) {
        error = thrown;
      }
      expect(isKeelError(error) && error.code).toBe("INVALID_ARGUMENT");
      expect(isKeelError(error) && error.hint).toMatch(/leaseTtlMs/);
    },
  );
});

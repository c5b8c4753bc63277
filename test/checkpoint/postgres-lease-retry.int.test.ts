/**
 * A thread this saver wrote less than a second ago gets the lease check alone (no thread row
 * upsert); when that check finds no row it may write, the upsert is tried in the same commit's
 * promise: it recreates a deleted thread's row, and it refuses a thread another owner leased.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireLease, PostgresSaver } from "../../src/checkpoint/index.js";
import { postgresAvailable } from "../support/postgres.js";
import { checkpointOf, metadataOf, threadConfig } from "./saver.case.js";
import { postgresTestStore, type TestStore } from "./support/databases.js";

const available = await postgresAvailable();
const it_ = available ? it : it.skip;

const sync = (thread: string) => ({ ...threadConfig(thread), durability: "sync" as const });

/** A saver on the store's pool that records the names of the statements it sends. */
function namingSaver(store: TestStore["store"]): { saver: PostgresSaver; names: string[] } {
  const native = store.native;
  if (native.dialect !== "postgres") throw new Error("expected Postgres");
  const names: string[] = [];
  const query = native.pool.query as (...args: unknown[]) => unknown;
  const saver = new PostgresSaver({
    pool: {
      query: ((...args: unknown[]) => {
        const first = args[0] as { name?: string } | string;
        if (typeof first === "object" && first.name !== undefined) names.push(first.name);
        return query.apply(native.pool, args);
      }) as typeof native.pool.query,
    },
  });
  return { saver, names };
}

describe("Postgres saver: a recently written thread's lease check, retried as the upsert", () => {
  let test: TestStore;
  beforeAll(async () => {
    if (available) test = await postgresTestStore("lease_retry");
  });
  afterAll(async () => {
    if (available) await test.cleanup();
  });

  it_("a thread deleted since its last step is recreated by the next step", async () => {
    const { saver, names } = namingSaver(test.store);
    await saver.put(sync("retry-deleted"), checkpointOf({ n: 1 }, { n: 1 }), metadataOf(0), {
      n: 1,
    });
    await saver.deleteThread("retry-deleted");
    names.length = 0;
    const second = checkpointOf({ n: 2 }, { n: 2 });
    const saved = await saver.put(sync("retry-deleted"), second, metadataOf(1), { n: 2 });
    // The lease check (shape `c`), refused for want of a row, then the upsert (shape `u`).
    expect(names.filter((name) => name.startsWith("keel_ck3_"))).toEqual([
      "keel_ck3_c0_0_1",
      "keel_ck3_u0_0_1",
    ]);
    expect(saved.configurable?.checkpoint_id).toBe(second.id);
    const latest = await saver.getTuple(threadConfig("retry-deleted"));
    expect(latest?.checkpoint.id).toBe(second.id);
    expect(latest?.checkpoint.channel_values).toEqual({ n: 2 });
  });

  it_("a thread leased by another owner since its last step is refused", async () => {
    const saver = PostgresSaver.fromStore(test.store);
    const other = PostgresSaver.fromStore(test.store, { ownerId: "other-host:1:retry" });
    const first = checkpointOf({ n: 1 }, { n: 1 });
    await saver.put(sync("retry-leased"), first, metadataOf(0), { n: 1 });
    await acquireLease(other.sql, "retry-leased", other.ownerId, {
      now: Date.now(),
      ttlMs: 60_000,
    });
    await expect(
      saver.put(sync("retry-leased"), checkpointOf({ n: 2 }, { n: 2 }), metadataOf(1), { n: 2 }),
    ).rejects.toMatchObject({ code: "THREAD_LEASED" });
    expect((await saver.getTuple(threadConfig("retry-leased")))?.checkpoint.id).toBe(first.id);
  });
});

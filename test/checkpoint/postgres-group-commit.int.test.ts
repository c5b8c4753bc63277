/**
 * Group commit on Postgres: `sync` steps of several threads that arrive while a commit is under
 * way share the next commit, each step still durable before its thread goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireLease, PostgresSaver } from "../../src/checkpoint/index.js";
import { Annotation, END, START, StateGraph } from "../../src/index.js";
import { postgresAvailable } from "../support/postgres.js";
import { checkpointOf, metadataOf, threadConfig } from "./saver.case.js";
import { postgresTestStore, type TestStore } from "./support/databases.js";

const available = await postgresAvailable();
const it_ = available ? it : it.skip;

function chain(saver: PostgresSaver, length: number) {
  const State = Annotation.Root({ count: Annotation<number>() });
  let builder = new StateGraph(State) as unknown as {
    addNode(name: string, fn: unknown): typeof builder;
    addEdge(from: string, to: string): typeof builder;
    compile(options: { checkpointer: PostgresSaver }): {
      invoke(input: unknown, config: unknown): Promise<{ count: number }>;
    };
  };
  for (let i = 0; i < length; i++)
    builder = builder.addNode(`n${i}`, (s: { count: number }) => ({ count: s.count + 1 }));
  builder = builder.addEdge(START, "n0");
  for (let i = 1; i < length; i++) builder = builder.addEdge(`n${i - 1}`, `n${i}`);
  return builder.addEdge(`n${length - 1}`, END).compile({ checkpointer: saver });
}

const sync = (config: ReturnType<typeof threadConfig>) => ({
  ...config,
  durability: "sync" as const,
});
const step = (n: number) => checkpointOf({ count: n }, { count: n });

/**
 * A saver on the store's pool whose next step commit (the `WITH thr AS` statement) waits, once
 * `holdNextCommit()` was called, until the function it returned is called.
 */
function gatedSaver(native: { pool: { query: unknown } }) {
  let hold: Promise<void> | undefined;
  const query = native.pool.query as (...args: unknown[]) => unknown;
  const saver = new PostgresSaver({
    pool: {
      query: (async (...args: unknown[]) => {
        const first = args[0] as string | { text: string };
        const text = typeof first === "string" ? first : first.text;
        if (hold !== undefined && /^\s*WITH thr AS/.test(text)) {
          const gate = hold;
          hold = undefined;
          await gate;
        }
        return query.apply(native.pool, args);
      }) as never,
    },
  });
  const holdNextCommit = (): (() => void) => {
    let release = () => {};
    hold = new Promise((resolve) => {
      release = resolve;
    });
    return release;
  };
  return { saver, holdNextCommit };
}

describe("Postgres saver: group commit", () => {
  let test: TestStore;
  beforeAll(async () => {
    if (available) test = await postgresTestStore("group_commit");
  });
  afterAll(async () => {
    if (available) await test.cleanup();
  });

  it_("8 threads stepping at once share commits; every step of each is saved", async () => {
    const native = test.store.native;
    if (native.dialect !== "postgres") throw new Error("expected Postgres");
    let commits = 0;
    const saver = new PostgresSaver({
      pool: {
        query: ((...args: unknown[]) => {
          const first = args[0] as string | { text: string };
          if (/^\s*WITH thr AS/.test(typeof first === "string" ? first : first.text)) commits++;
          return (native.pool.query as (...a: unknown[]) => unknown)(...args);
        }) as typeof native.pool.query,
      },
    });
    const length = 20;
    const threads = Array.from({ length: 8 }, (_, i) => `group-${i}`);
    const results = await Promise.all(
      threads.map((thread) =>
        chain(saver, length).invoke(
          { count: 0 },
          { configurable: { thread_id: thread }, durability: "sync", recursionLimit: 100 },
        ),
      ),
    );
    expect(results.map((result) => result.count)).toEqual(threads.map(() => length));
    const rows = await native.pool.query<{ thread_id: string; n: string }>(
      "SELECT thread_id, COUNT(*) AS n FROM state_checkpoints WHERE thread_id LIKE 'group-%' GROUP BY thread_id",
    );
    // The input checkpoint and one per node, for every thread.
    expect(rows.rows.map((row) => Number(row.n))).toEqual(threads.map(() => length + 2));
    const steps = threads.length * (length + 2);
    expect(commits).toBeLessThan(steps / 2);
  });

  it_("a thread refused by its lease fails alone; the others of its commit go on", async () => {
    const native = test.store.native;
    if (native.dialect !== "postgres") throw new Error("expected Postgres");
    const saver = PostgresSaver.fromStore(test.store);
    const other = PostgresSaver.fromStore(test.store, { ownerId: "other-host:1:abc" });
    // The leased thread has a first checkpoint, so its saver has touched it (the lease-check path).
    await chain(saver, 1).invoke(
      { count: 0 },
      { configurable: { thread_id: "leased-in-group" }, durability: "sync" },
    );
    await acquireLease(other.sql, "leased-in-group", other.ownerId, {
      now: Date.now(),
      ttlMs: 60_000,
    });
    const outcomes = await Promise.allSettled(
      ["free-a", "leased-in-group", "free-b"].map((thread) =>
        chain(saver, 10).invoke(
          { count: 0 },
          { configurable: { thread_id: thread }, durability: "sync", recursionLimit: 100 },
        ),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    expect(outcomes[1]).toMatchObject({ reason: { code: "THREAD_LEASED" } });
  });

  it_(
    "a lease refusal reaches only its thread, whichever of the commit's waiters runs first",
    async () => {
      const native = test.store.native;
      if (native.dialect !== "postgres") throw new Error("expected Postgres");
      // Holds the next commit until released, so the steps queued meanwhile share the one after.
      const { saver, holdNextCommit } = gatedSaver(native);
      const other = PostgresSaver.fromStore(test.store, { ownerId: "other-host:2:def" });
      const latest: Record<string, ReturnType<typeof threadConfig>> = {};
      for (const thread of ["blocker", "first-waiter", "leased-waiter"])
        latest[thread] = await saver.put(sync(threadConfig(thread)), step(1), metadataOf(0), {
          count: 1,
        });
      await acquireLease(other.sql, "leased-waiter", other.ownerId, {
        now: Date.now(),
        ttlMs: 60_000,
      });
      const release = holdNextCommit();
      const blocker = saver.put(sync(latest.blocker!), step(2), metadataOf(1), { count: 2 });
      await new Promise((resolve) => setImmediate(resolve));
      // Writes nobody waits for, then two sync steps: the free thread's waiter is first in line.
      await saver.putWrites(latest["first-waiter"]!, [["count", 9]], "task-1");
      const free = saver.put(sync(latest["first-waiter"]!), step(2), metadataOf(1), { count: 2 });
      const leased = saver.put(sync(latest["leased-waiter"]!), step(2), metadataOf(1), {
        count: 2,
      });
      await new Promise((resolve) => setImmediate(resolve));
      release();
      const outcomes = await Promise.allSettled([blocker, free, leased]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        "fulfilled",
        "fulfilled",
        "rejected",
      ]);
      expect(outcomes[2]).toMatchObject({ reason: { code: "THREAD_LEASED" } });
      // Raised once, to its own thread: the free thread's next step is not refused.
      const next = outcomes[1]?.status === "fulfilled" ? outcomes[1].value : undefined;
      if (next === undefined) throw new Error("expected the free thread's step to be saved");
      await expect(
        saver.put(sync(next), step(3), metadataOf(2), { count: 3 }),
      ).resolves.toMatchObject({ configurable: { thread_id: "first-waiter" } });
    },
  );

  it_(
    "a sync step resolves with its own commit, not after the commit that follows it",
    async () => {
      const native = test.store.native;
      if (native.dialect !== "postgres") throw new Error("expected Postgres");
      const { saver, holdNextCommit } = gatedSaver(native);
      const latest: Record<string, ReturnType<typeof threadConfig>> = {};
      for (const thread of ["own-first", "own-second"])
        latest[thread] = await saver.put(sync(threadConfig(thread)), step(1), metadataOf(0), {
          count: 1,
        });
      // The first step's commit starts at once; the second step waits for the commit after it,
      // which is held.
      const first = saver.put(sync(latest["own-first"]!), step(2), metadataOf(1), { count: 2 });
      const second = saver.put(sync(latest["own-second"]!), step(2), metadataOf(1), { count: 2 });
      // The commit after the first is held.
      const release = holdNextCommit();
      const timeout = new Promise((resolve) => setTimeout(() => resolve("held"), 5_000));
      try {
        await expect(Promise.race([first.then(() => "saved"), timeout])).resolves.toBe("saved");
      } finally {
        release();
      }
      await expect(second).resolves.toMatchObject({ configurable: { thread_id: "own-second" } });
    },
  );
});

/**
 * What only the durable savers promise: clear errors on bad data (rest of the database
 * untouched), pruning that keeps resume and latest state, a thread index fast at 100,000 threads,
 * leases, durability modes, and the run store. Run once per dialect.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listThreadsSql } from "../../src/checkpoint/durable/queries.js";
import { ROW_LAYOUT } from "../../src/checkpoint/durable/value-map.js";
import {
  acquireLease,
  type DurableSaver,
  newCheckpointId,
  PostgresSaver,
  RunStore,
  SqliteSaver,
} from "../../src/checkpoint/index.js";
import { Annotation, END, interrupt, START, StateGraph } from "../../src/index.js";
import type { Store } from "../../src/store/index.js";
import { checkpointOf, metadataOf, threadConfig } from "./saver.case.js";
import type { TestStore } from "./support/databases.js";

type SaverOptions = ConstructorParameters<typeof SqliteSaver>[0] extends infer O
  ? Omit<O, "database">
  : never;

function saverOn(store: Store, options: SaverOptions = {}): DurableSaver {
  return store.dialect === "sqlite"
    ? SqliteSaver.fromStore(store, options)
    : PostgresSaver.fromStore(store, options);
}

async function countRows(saver: DurableSaver, table: string, threadId?: string): Promise<number> {
  const rows = await saver.sql.all<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM ${table}${threadId ? " WHERE thread_id = ?" : ""}`,
    threadId ? [threadId] : [],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Writes `steps` checkpoints on a thread, appending one message each; returns the last config.
 * Short messages keep the list inline in the checkpoint rows; a `pad` makes it a blob.
 */
async function grow(saver: DurableSaver, threadId: string, steps: number, pad = "") {
  let config = threadConfig(threadId);
  let messages: string[] = [];
  for (let step = 0; step < steps; step++) {
    messages = messages.concat([`m${step}${pad}`]);
    config = await saver.put(
      config,
      checkpointOf({ messages, step }, { messages: step + 1, step: step + 1 }),
      metadataOf(step),
      { messages: step + 1, step: step + 1 },
    );
    await saver.putWrites(config, [["messages", [`next${step}`]]], `task-${step}`);
  }
  return { config, messages };
}

export function runDurableSuite(options: {
  name: string;
  available?: () => Promise<boolean>;
  open(): Promise<TestStore>;
}): void {
  describe(`durable saver: ${options.name}`, async () => {
    const available = options.available ? await options.available() : true;
    let test: TestStore;
    let saver: DurableSaver;
    beforeAll(async () => {
      if (!available) return;
      test = await options.open();
      saver = saverOn(test.store);
    });
    afterAll(async () => {
      if (available) await test.cleanup();
    });
    const it_ = available ? it : it.skip;

    it_("a corrupted value is refused with CHECKPOINT_CORRUPT; nothing else changes", async () => {
      const pad = ": a message long enough to be stored as a blob, not inline in the row";
      await grow(saver, "corrupt-me", 3, pad);
      await grow(saver, "healthy", 3);
      await saver.sql.run(
        "UPDATE state_checkpoint_blobs SET value_json = '[\"tampered\"]' WHERE thread_id = ? AND channel = 'messages'",
        ["corrupt-me"],
      );
      const before = await countRows(saver, "state_checkpoint_blobs");
      await expect(saver.getTuple(threadConfig("corrupt-me"))).rejects.toMatchObject({
        code: "CHECKPOINT_CORRUPT",
        message: expect.stringContaining('channel "messages"'),
      });
      expect(
        (await saver.getTuple(threadConfig("healthy")))?.checkpoint.channel_values.messages,
      ).toEqual(["m0", "m1", "m2"]);
      expect(await countRows(saver, "state_checkpoint_blobs")).toBe(before);
      // A truncated value (not JSON at all) is refused the same way.
      await saver.sql.run(
        "UPDATE state_checkpoint_blobs SET value_json = '[\"m', value_hash = '0' WHERE thread_id = ? AND channel = 'messages'",
        ["corrupt-me"],
      );
      await expect(saver.getTuple(threadConfig("corrupt-me"))).rejects.toMatchObject({
        code: "CHECKPOINT_CORRUPT",
      });
      // Small values live in the checkpoint row: a changed row fails its hash.
      await grow(saver, "tampered-row", 3);
      await saver.sql.run(
        "UPDATE state_checkpoints SET channel_seqs_json = replace(channel_seqs_json, 'm1', 'mX') WHERE thread_id = ?",
        ["tampered-row"],
      );
      await expect(saver.getTuple(threadConfig("tampered-row"))).rejects.toMatchObject({
        code: "CHECKPOINT_CORRUPT",
        message: expect.stringContaining("value map"),
      });
    });

    it_(
      "a checkpoint written by a newer format is refused with CHECKPOINT_FORMAT, naming it",
      async () => {
        await grow(saver, "from-the-future", 2);
        await grow(saver, "present", 3);
        await saver.flush();
        const [row] = await saver.sql.all<{ id: string; checkpoint_json: string }>(
          "SELECT id, checkpoint_json FROM state_checkpoints WHERE thread_id = ? ORDER BY id DESC LIMIT 1",
          ["from-the-future"],
        );
        if (!row) throw new Error("no checkpoint");
        const head = JSON.parse(row.checkpoint_json) as Record<string, unknown>;
        const rows = await countRows(saver, "state_checkpoints");
        const refused = (hint: string) => ({
          code: "CHECKPOINT_FORMAT",
          message: expect.stringContaining(`Checkpoint ${row.id} of thread "from-the-future"`),
          details: expect.objectContaining({ threadId: "from-the-future", checkpointId: row.id }),
          hint: expect.stringContaining(hint),
        });
        const setHead = (json: string) =>
          saver.sql.run("UPDATE state_checkpoints SET checkpoint_json = ? WHERE id = ?", [
            json,
            row.id,
          ]);
        const latest = () => saver.getTuple(threadConfig("from-the-future"));
        // Values in a newer serde format.
        await saver.sql.run("UPDATE state_checkpoints SET format_version = 99 WHERE id = ?", [
          row.id,
        ]);
        await expect(latest()).rejects.toMatchObject(refused("Upgrade Keel"));
        await saver.sql.run("UPDATE state_checkpoints SET format_version = 1 WHERE id = ?", [
          row.id,
        ]);
        // A newer checkpoint format, its row otherwise intact (layout and hash).
        await setHead(JSON.stringify({ ...head, v: 2 }));
        await expect(latest()).rejects.toMatchObject(refused("Upgrade Keel"));
        // A newer row layout.
        await setHead(JSON.stringify({ ...head, l: ROW_LAYOUT + 1 }));
        await expect(latest()).rejects.toMatchObject(refused("Upgrade Keel"));
        // Every path that reads the row refuses it with the same error and hint: the latest,
        // a listing of the thread or of every thread (rather than skip it), its parent (whose
        // pending writes the row may carry), and prune (which deletes nothing).
        const drain = async (config: Parameters<typeof saver.list>[0]) => {
          for await (const _tuple of saver.list(config)) {
            // draining is the point: the listing must throw on the bad row
          }
        };
        const [parentRow] = await saver.sql.all<{ parent_checkpoint_id: string }>(
          "SELECT parent_checkpoint_id FROM state_checkpoints WHERE id = ?",
          [row.id],
        );
        const everyPath = async (hint: string) => {
          await expect(latest(), "latest").rejects.toMatchObject(refused(hint));
          await expect(drain(threadConfig("from-the-future")), "list").rejects.toMatchObject(
            refused(hint),
          );
          await expect(drain({ configurable: {} }), "list all").rejects.toMatchObject(
            refused(hint),
          );
          await expect(
            saver.getTuple({
              configurable: {
                thread_id: "from-the-future",
                checkpoint_ns: "",
                checkpoint_id: parentRow?.parent_checkpoint_id,
              },
            }),
            "parent",
          ).rejects.toMatchObject(refused(hint));
          await expect(
            saver.prune("from-the-future", { keepLast: 1 }),
            "prune",
          ).rejects.toMatchObject({
            ...refused(hint),
            message: expect.stringContaining(`Checkpoint ${row.id} of thread "from-the-future"`),
          });
        };
        // A newer format whose header has no layout field is still newer, not the old layout.
        await setHead('{"v":99}');
        await everyPath("Upgrade Keel");
        await setHead('{"v":99,"ts":"2020-01-01T00:00:00.000Z"}');
        await everyPath("Upgrade Keel");
        // The first development layout (format 1, no layout field): deleting the thread is the way.
        await setHead('{"v":1,"ts":"2020-01-01T00:00:00.000Z"}');
        await everyPath("Delete the thread");
        // The rest of the database is untouched and readable.
        expect(await countRows(saver, "state_checkpoints")).toBe(rows);
        expect(
          (await saver.getTuple(threadConfig("present")))?.checkpoint.channel_values.step,
        ).toBe(2);
        await setHead(row.checkpoint_json);
        expect((await latest())?.checkpoint.channel_values.step).toBe(1);
      },
    );

    it_(
      "a value, blob or write this Keel cannot read names its thread and checkpoint",
      async () => {
        const pad = ": a message long enough to be stored as a blob, not inline in the row";
        const { config } = await grow(saver, "bad-values", 3, pad);
        await saver.flush();
        const id = String(config.configurable?.checkpoint_id);
        const named = (code: string, hint: string) => ({
          code,
          message: expect.stringContaining(`Checkpoint ${id} of thread "bad-values"`),
          details: expect.objectContaining({ threadId: "bad-values", checkpointId: id }),
          hint: expect.stringContaining(hint),
        });
        // A pending write whose content does not match its hash.
        await saver.putWrites(config, [["messages", ["late"]]], "task-late");
        await saver.flush();
        await saver.sql.run(
          "UPDATE state_checkpoint_writes SET value_hash = 'x' WHERE thread_id = ? AND checkpoint_id = ?",
          ["bad-values", id],
        );
        await expect(saver.getTuple(config)).rejects.toMatchObject(
          named("CHECKPOINT_CORRUPT", "Restore the database from a backup"),
        );
        await saver.sql.run("DELETE FROM state_checkpoint_writes WHERE thread_id = ?", [
          "bad-values",
        ]);
        // A blob whose hash does not match.
        await saver.sql.run(
          "UPDATE state_checkpoint_blobs SET value_hash = 'x' WHERE thread_id = ? AND channel = 'messages'",
          ["bad-values"],
        );
        await expect(saver.getTuple(config)).rejects.toMatchObject(
          named("CHECKPOINT_CORRUPT", "Restore the database from a backup"),
        );
        // A value tagged with a type a newer Keel knows (the hash is right: it is not damage).
        const tagged = '[{"$keel":"from-the-future","v":1}]';
        const [hashed] = await saver.sql.all<{ h: string }>("SELECT ? AS h", [tagged]);
        const { valueHashOf } = await import("../../src/checkpoint/durable/blob-codec.js");
        await saver.sql.run(
          "UPDATE state_checkpoint_blobs SET value_json = ?, value_hash = ?, encoding = 'full', base_checkpoint_seq = NULL WHERE thread_id = ? AND channel = 'messages'",
          [hashed?.h, valueHashOf(tagged), "bad-values"],
        );
        await expect(saver.getTuple(config)).rejects.toMatchObject(
          named("CHECKPOINT_FORMAT", "upgrade"),
        );
        await saver.deleteThread("bad-values");
      },
    );

    it_(
      "prune racing forks from old checkpoints: every branch stays readable and resumable",
      async () => {
        const pad = ": a message long enough to be stored as a blob, not inline in the row";
        await grow(saver, "prune-fork", 30, pad);
        const history = [];
        for await (const tuple of saver.list(threadConfig("prune-fork"))) history.push(tuple);
        // Another process forks from an old checkpoint: it reads it, a prune deletes it (and the
        // values only it used), then the fork is committed and grows.
        const forker = saverOn(test.store);
        const old = history[20];
        const base = old && (await forker.getTuple(old.config));
        if (!base) throw new Error("no old checkpoint");
        const pruned = saver.prune("prune-fork", { keepLast: 1 });
        let config = await forker.put(
          base.config,
          { ...base.checkpoint, id: newCheckpointId() },
          metadataOf(10, { source: "fork" }),
          {},
        );
        await pruned;
        let messages = base.checkpoint.channel_values.messages as string[];
        for (let step = 11; step < 15; step++) {
          messages = messages.concat([`fork${step}${pad}`]);
          // Each fork step races another prune.
          [config] = await Promise.all([
            forker.put(
              config,
              checkpointOf({ messages, step }, { messages: step + 100, step: step + 100 }),
              metadataOf(step),
              { messages: step + 100, step: step + 100 },
            ),
            saver.prune("prune-fork", { keepLast: 1 }),
          ]);
        }
        // The fork's tip and the main branch's tip both read back whole; whatever a racing prune
        // kept reads back too, and a last prune leaves the two tips.
        expect((await saver.getTuple(config))?.checkpoint.channel_values.messages).toEqual(
          messages,
        );
        for await (const _tuple of saver.list(threadConfig("prune-fork"))) {
          // Decoding every value is the check.
        }
        await saver.prune("prune-fork", { keepLast: 1 });
        const tips = [];
        for await (const tuple of saver.list(threadConfig("prune-fork"))) tips.push(tuple);
        expect(tips.map((tuple) => tuple.checkpoint.channel_values.step).sort()).toEqual([14, 29]);
        expect(
          tips.find((t) => t.checkpoint.channel_values.step === 29)?.checkpoint.channel_values
            .messages,
        ).toHaveLength(30);
      },
    );

    it_("prune refuses a thread with a row this Keel cannot read; nothing is deleted", async () => {
      const pad = ": a message long enough to be stored as a blob, not inline in the row";
      const counts = async (threadId: string) =>
        Promise.all(
          ["state_checkpoints", "state_checkpoint_blobs", "state_checkpoint_writes"].map((t) =>
            countRows(saver, t, threadId),
          ),
        );
      // A newer serde format, a newer row layout, a newer checkpoint format, on one old row.
      const newer = {
        "newer-serde": "format_version = 99",
        "newer-layout": `checkpoint_json = replace(checkpoint_json, '"l":${ROW_LAYOUT}', '"l":${ROW_LAYOUT + 1}')`,
        "newer-format": `checkpoint_json = replace(checkpoint_json, '"v":1', '"v":2')`,
      };
      for (const [threadId, change] of Object.entries(newer)) {
        await grow(saver, threadId, 6, pad);
        const [oldest] = await saver.sql.all<{ id: string }>(
          "SELECT id FROM state_checkpoints WHERE thread_id = ? ORDER BY id LIMIT 1",
          [threadId],
        );
        await saver.sql.run(`UPDATE state_checkpoints SET ${change} WHERE id = ?`, [oldest?.id]);
        await saver.flush();
        const before = await counts(threadId);
        await expect(saver.prune(threadId, { keepLast: 1 })).rejects.toMatchObject({
          code: "CHECKPOINT_FORMAT",
          message: expect.stringContaining(`Thread "${threadId}" was not pruned`),
          details: expect.objectContaining({ threadId, checkpointId: oldest?.id }),
        });
        expect(await counts(threadId)).toEqual(before);
      }
      // A row that fails its hash is not pruned around either.
      await grow(saver, "corrupt-prune", 6, pad);
      await saver.flush();
      await saver.sql.run(
        "UPDATE state_checkpoints SET channel_seqs_json = channel_seqs_json || ' ' WHERE thread_id = ? AND step = 2",
        ["corrupt-prune"],
      );
      const before = await counts("corrupt-prune");
      await expect(saver.prune("corrupt-prune", { keepLast: 1 })).rejects.toMatchObject({
        code: "CHECKPOINT_CORRUPT",
      });
      expect(await counts("corrupt-prune")).toEqual(before);
    });

    it_("an unknown thread or run is a clear not-found error", async () => {
      await expect(saver.getThread("no-such-thread")).rejects.toMatchObject({
        code: "THREAD_NOT_FOUND",
      });
      await expect(saver.prune("no-such-thread", { keepLast: 1 })).rejects.toMatchObject({
        code: "THREAD_NOT_FOUND",
      });
      await expect(new RunStore(saver).get("no-such-run")).rejects.toMatchObject({
        code: "RUN_NOT_FOUND",
      });
      expect(await saver.getTuple(threadConfig("no-such-thread"))).toBeUndefined();
    });

    it_(
      "a child sorts after its parent when the writer's clock is behind the parent's writer's",
      async () => {
        const State = Annotation.Root({
          count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
        });
        const graphOn = (on: DurableSaver) =>
          new StateGraph(State)
            .addNode("add", () => ({ count: 1 }))
            .addEdge(START, "add")
            .addEdge("add", END)
            .compile({ checkpointer: on });
        const config = threadConfig("skewed-clock");
        await graphOn(saver).invoke({ count: 0 }, config);
        // Another worker whose clock is an hour ahead wrote the next checkpoint: its id carries
        // that worker's time (built by hand: this process's id clock must stay honest).
        const ahead = (Date.now() + 3_600_000).toString(16).padStart(12, "0");
        const futureId = `${ahead.slice(0, 8)}-${ahead.slice(8)}-7000-8000-000000000000`;
        const latest = await saver.getTuple(config);
        if (!latest) throw new Error("no checkpoint");
        const version = (latest.checkpoint.channel_versions.count ?? 0) + 1;
        await saverOn(test.store).put(
          latest.config,
          {
            ...latest.checkpoint,
            id: futureId,
            channel_values: { ...latest.checkpoint.channel_values, count: 100 },
            channel_versions: { ...latest.checkpoint.channel_versions, count: version },
          },
          metadataOf(latest.metadata.step + 1, { source: "update" }),
          { count: version },
        );
        // This worker (honest clock, another saver) continues the thread from that checkpoint.
        const graph = graphOn(saverOn(test.store));
        await graph.updateState(config, { count: 5 });
        const state = await graph.getState(config);
        expect(state.values).toEqual({ count: 105 });
        expect(state.config.configurable?.checkpoint_id).not.toBe(futureId);
        expect(String(state.config.configurable?.checkpoint_id) > futureId).toBe(true);
        // Every checkpoint of the thread sorts after its parent.
        for await (const tuple of saver.list(config)) {
          const parent = tuple.parentConfig?.configurable?.checkpoint_id;
          if (parent !== undefined) expect(tuple.checkpoint.id > String(parent)).toBe(true);
        }
      },
    );

    it_(
      "two savers on one database: forks and resumes from past checkpoints never reuse a seq",
      async () => {
        const pad = ": a message long enough to be stored as a blob, not inline in the row";
        const a = saverOn(test.store);
        const b = saverOn(test.store);
        const { config } = await grow(a, "two-savers", 5, pad);
        const history: Array<{ config: typeof config; messages: string[] }> = [];
        for await (const tuple of a.list(threadConfig("two-savers")))
          history.push({
            config: tuple.config,
            messages: tuple.checkpoint.channel_values.messages as string[],
          });
        const step = (
          on: DurableSaver,
          parent: { config: typeof config; messages: string[] },
          text: string,
          version: number,
        ) =>
          on.put(
            parent.config,
            checkpointOf(
              { messages: [...parent.messages, `${text}${pad}`], step: version },
              { messages: version, step: version },
            ),
            metadataOf(version, { source: "fork" }),
            { messages: version, step: version },
          );
        // B forks from a past checkpoint; then A, whose cache knew only its own steps, forks from
        // another past checkpoint and goes back to its own latest; then B resumes its fork. (Two
        // savers writing one thread at the same time is what the run store's lease prevents.)
        const third = history[2];
        const second = history[3];
        const latest = history[0];
        if (!third || !second || !latest) throw new Error("no history");
        const forkB = await step(b, third, "b-fork", 50);
        await a.getTuple(second.config);
        const forkA = await step(a, second, "a-fork", 60);
        await a.getTuple(latest.config);
        const onA = await step(a, latest, "a-next", 70);
        // B resumes its fork (a run starts by reading the checkpoint it continues from).
        await b.getTuple(forkB);
        const onB = await b.put(
          forkB,
          checkpointOf(
            { messages: [...third.messages, `b-fork${pad}`, `b-next${pad}`], step: 51 },
            { messages: 51, step: 51 },
          ),
          metadataOf(51),
          { messages: 51, step: 51 },
        );
        for (const [saved, last] of [
          [forkB, "b-fork"],
          [forkA, "a-fork"],
          [onA, "a-next"],
          [onB, "b-next"],
        ] as const) {
          const messages = (await saverOn(test.store).getTuple(saved))?.checkpoint.channel_values
            .messages as string[];
          expect(messages.at(-1)).toBe(`${last}${pad}`);
        }
        const seqs = await saver.sql.all<{ seq: number | string }>(
          "SELECT seq FROM state_checkpoints WHERE thread_id = ?",
          ["two-savers"],
        );
        expect(new Set(seqs.map((r) => Number(r.seq))).size).toBe(seqs.length);
      },
    );

    it_(
      "a fork whose id sorts below the latest (a clock behind) is marked, and the next seq is above it",
      async () => {
        const { config: latest } = await grow(saver, "clock-behind", 4);
        const history: string[] = [];
        for await (const tuple of saver.list(threadConfig("clock-behind")))
          history.push(tuple.config.configurable?.checkpoint_id as string);
        const parent = history[2];
        const child = history[1];
        if (parent === undefined || child === undefined) throw new Error("no history");
        // Another process forks from a past checkpoint with a clock behind: its id sorts after its
        // parent but before the parent's child (so before the latest). Ids made in one millisecond
        // may share all but their last group: then the fork takes the parent's id plus one.
        const highest = `${parent.slice(0, 24)}ffffffffffff`;
        const forkId =
          highest < child
            ? highest
            : `${parent.slice(0, 24)}${(BigInt(`0x${parent.slice(24)}`) + 1n).toString(16).padStart(12, "0")}`;
        expect(forkId < child).toBe(true);
        expect(forkId > parent && forkId < String(latest.configurable?.checkpoint_id)).toBe(true);
        const other = saverOn(test.store);
        await other.getTuple(threadConfig("clock-behind", parent));
        await other.put(
          threadConfig("clock-behind", parent),
          {
            ...checkpointOf({ messages: ["fork"], step: 9 }, { messages: 9, step: 9 }),
            id: forkId,
          },
          metadataOf(9, { source: "fork" }),
          { messages: 9, step: 9 },
        );
        // A third process resumes the latest: its next seq is above the fork's, though the fork is
        // not the latest by id.
        const third = saverOn(test.store);
        await third.getTuple(threadConfig("clock-behind"));
        await third.put(
          latest,
          checkpointOf({ messages: ["next"], step: 5 }, { messages: 10, step: 10 }),
          metadataOf(5),
          { messages: 10, step: 10 },
        );
        const rows = await saver.sql.all<{
          id: string;
          seq: number | string;
          below: number | string;
        }>(
          "SELECT id, seq, is_below_latest AS below FROM state_checkpoints WHERE thread_id = ? ORDER BY seq",
          ["clock-behind"],
        );
        expect(new Set(rows.map((r) => Number(r.seq))).size).toBe(rows.length);
        // Only the fork is marked (only marked rows are in the seq index).
        expect(rows.filter((r) => Number(r.below) === 1).map((r) => r.id)).toEqual([forkId]);
        expect(rows.at(-1)?.seq !== undefined && Number(rows.at(-1)?.seq)).toBe(rows.length);
      },
    );

    it_("a list item or a record changed in place between steps is saved as changed", async () => {
      const pad = ": long enough that the value is stored as a blob, not inline in the row";
      const messages: Array<{ text: string }> = [{ text: `a${pad}` }, { text: `b${pad}` }];
      const profile = { name: `n${pad}`, nested: { count: 1 }, tags: ["x"] };
      const values = () => ({ messages, profile });
      let config = await saver.put(
        threadConfig("in-place"),
        checkpointOf(values(), { messages: 1, profile: 1 }),
        metadataOf(0),
        { messages: 1, profile: 1 },
      );
      // A node mutates the objects it was given and returns them (a new version each time).
      const steps: Array<() => void> = [
        () => {
          messages[0]!.text = `changed${pad}`;
          messages.push({ text: `c${pad}` });
        },
        () => {
          messages[1]!.text = `changed too${pad}`;
        },
        () => {
          profile.nested.count = 2;
          profile.tags.push("y");
        },
        () => {
          messages.push({ text: `d${pad}` });
        },
      ];
      let version = 1;
      for (const change of steps) {
        change();
        version++;
        config = await saver.put(
          config,
          checkpointOf(values(), { messages: version, profile: version }),
          metadataOf(version),
          { messages: version, profile: version },
        );
        const read = await saverOn(test.store).getTuple(config);
        expect(read?.checkpoint.channel_values).toEqual(JSON.parse(JSON.stringify(values())));
      }
      // The unchanged prefix was still stored as a delta, not a full copy.
      const encodings = await saver.sql.all<{ encoding: string }>(
        "SELECT encoding FROM state_checkpoint_blobs WHERE thread_id = ? AND channel = 'messages' ORDER BY checkpoint_seq",
        ["in-place"],
      );
      expect(encodings.map((row) => row.encoding)).toContain("append");
    });

    it_(
      "a step that cannot be serialised leaves the next step from the same parent intact",
      async () => {
        // The saver updates what it caches of the latest checkpoint in place while encoding a
        // step; a value that fails half way must not leave that cache half updated.
        const first = await saver.put(
          threadConfig("unserialisable"),
          checkpointOf({ a: 1, b: "kept", c: 3 }, { a: 1, b: 1, c: 1 }),
          metadataOf(0),
          { a: 1, b: 1, c: 1 },
        );
        await expect(
          saver.put(
            first,
            checkpointOf({ a: 2, b: "kept", c: () => 0, d: 4 }, { a: 2, b: 1, c: 2, d: 1 }),
            metadataOf(1),
            { a: 2, c: 2, d: 1 },
          ),
        ).rejects.toMatchObject({ code: "CHECKPOINT_NOT_SERIALIZABLE" });
        // `a` is inherited this time: it must be the parent's, not the failed step's.
        const second = await saver.put(
          first,
          checkpointOf({ a: 1, b: "kept", c: 5 }, { a: 1, b: 1, c: 3 }),
          metadataOf(1),
          { c: 3 },
        );
        const tuple = await saver.getTuple(second);
        expect(tuple?.checkpoint.channel_values).toEqual({ a: 1, b: "kept", c: 5 });
        expect(tuple?.checkpoint.channel_versions).toEqual({ a: 1, b: 1, c: 3 });
      },
    );

    it_(
      "prune keeps the last N: latest state, history and resume intact, unreachable values gone",
      async () => {
        const { config, messages } = await grow(saver, "prune-me", 40);
        const blobsBefore = await countRows(saver, "state_checkpoint_blobs", "prune-me");
        await expect(saver.prune("prune-me", {})).rejects.toMatchObject({
          code: "INVALID_ARGUMENT",
        });
        const result = await saver.prune("prune-me", { keepLast: 3 });
        expect(result.checkpointsDeleted).toBe(37);
        // Each step's writes commit inside the next checkpoint's row: the writes of checkpoints
        // 0–35 go with rows 1–36; those of 36 stay with row 37, which is kept.
        expect(result.writesDeleted).toBe(36);
        expect(result.blobsDeleted).toBeGreaterThan(0);
        expect(await countRows(saver, "state_checkpoint_blobs", "prune-me")).toBeLessThan(
          blobsBefore,
        );
        const history = [];
        for await (const tuple of saver.list(threadConfig("prune-me")))
          history.push(tuple.checkpoint.channel_values);
        expect(history.map((values) => values.step)).toEqual([39, 38, 37]);
        expect(history[0]?.messages).toEqual(messages);
        // Resume: the next step builds on the pruned thread.
        const next = messages.concat(["after"]);
        await saver.put(
          config,
          checkpointOf({ messages: next, step: 40 }, { messages: 41, step: 41 }),
          metadataOf(40),
          {
            messages: 41,
            step: 41,
          },
        );
        expect(
          (await saver.getTuple(threadConfig("prune-me")))?.checkpoint.channel_values.messages,
        ).toEqual(next);
        // Older-than with a cut-off before everything deletes nothing; after everything keeps the latest.
        expect((await saver.prune("prune-me", { olderThan: 0 })).checkpointsDeleted).toBe(0);
        expect(
          (await saver.prune("prune-me", { olderThan: Date.now() + 60_000 })).checkpointsDeleted,
        ).toBe(3);
        expect(
          (await saver.getTuple(threadConfig("prune-me")))?.checkpoint.channel_values.messages,
        ).toEqual(next);
        expect((await saver.getThread("prune-me")).checkpointCount).toBe(1);
      },
    );

    it_(
      "thread listing pages through 100,000 threads and 100,000 checkpoints on indexes only",
      async () => {
        const base = 1_700_000_000_000;
        // 100,000 threads; the 50 most recent hold 2,000 checkpoints each (a count per thread
        // would read all of them for every page).
        if (test.store.dialect === "sqlite") {
          await saver.sql.run(
            `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
           INSERT INTO state_threads (id, created_at, updated_at) SELECT 'bulk-' || i, ?, ? + i FROM n`,
            [base, base],
          );
          await saver.sql.run(
            `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
           INSERT INTO state_checkpoints (thread_id, checkpoint_ns, id, seq, format_version, step, source, checkpoint_json, channel_seqs_json, metadata_json, created_at)
           SELECT 'bulk-' || (99951 + i % 50), '', printf('%08d', i), i + 1, 1, i, 'loop', '{}', '{}', '{}', ? FROM n`,
            [base],
          );
        } else {
          await saver.sql.run(
            `INSERT INTO state_threads (id, created_at, updated_at)
           SELECT 'bulk-' || i, ?::bigint, ?::bigint + i FROM generate_series(1, 100000) AS i`,
            [base, base],
          );
          await saver.sql.run(
            `INSERT INTO state_checkpoints (thread_id, checkpoint_ns, id, seq, format_version, step, source, checkpoint_json, channel_seqs_json, metadata_json, created_at)
           SELECT 'bulk-' || (99951 + i % 50), '', lpad(i::text, 8, '0'), i + 1, 1, i, 'loop', '{}', '{}', '{}', ?::bigint FROM generate_series(0, 99999) AS i`,
            [base],
          );
          await saver.sql.run("ANALYZE state_threads", []);
          await saver.sql.run("ANALYZE state_checkpoints", []);
        }
        const first = await saver.listThreads({ limit: 50 });
        expect(first).toHaveLength(50);
        const bulk = first.filter((thread) => thread.threadId.startsWith("bulk-"));
        expect(bulk.length).toBeGreaterThan(0);
        expect(bulk.every((thread) => thread.latestCheckpointId !== null)).toBe(true);
        // A listing does not count checkpoints; one thread does.
        expect(first.every((thread) => thread.checkpointCount === null)).toBe(true);
        expect((await saver.getThread("bulk-100000")).checkpointCount).toBe(2000);
        const second = await saver.listThreads({ limit: 50, after: first[49] });
        expect(second).toHaveLength(50);
        expect(second[0]?.updatedAt).toBeLessThanOrEqual(first[49]?.updatedAt ?? 0);
        expect(new Set([...first, ...second].map((t) => t.threadId)).size).toBe(100);
        // The plan of the very statement listThreads runs (a page after a cursor).
        const sql = listThreadsSql(50, true);
        expect(sql).not.toMatch(/COUNT/i);
        if (test.store.dialect === "sqlite") {
          const plan = (
            await saver.sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, [
              base + 99_990,
              "bulk-99990",
            ])
          ).map((row) => row.detail);
          // The page: a walk of the covering index alone (the table is never read).
          expect(plan).toContainEqual(
            expect.stringMatching(
              /SEARCH t USING COVERING INDEX ix_state_threads_updated_at_id_covering/,
            ),
          );
          // Each thread's latest checkpoint: a seek of the checkpoints' key, the unique index
          // of migration 035 (which holds the id: the table is not read).
          expect(plan).toContainEqual(
            expect.stringMatching(
              /SEARCH c USING COVERING INDEX ix_state_checkpoints_thread_id_checkpoint_ns_id \(thread_id=\? AND checkpoint_ns=\?\)/,
            ),
          );
          // No table is scanned (only the page's own rows, at most 50).
          expect(plan.filter((d) => /^SCAN /.test(d) && d !== "SCAN page")).toEqual([]);
        } else {
          const plan = (
            await saver.sql.all<{ "QUERY PLAN": string }>(
              `EXPLAIN ${sql.replace("(?, ?)", "(?::bigint, ?)")}`,
              [base + 99_990, "bulk-99990"],
            )
          )
            .map((row) => row["QUERY PLAN"])
            .join("\n");
          expect(plan).toMatch(
            /Index Only Scan Backward using ix_state_threads_updated_at_id_covering/,
          );
          expect(plan).not.toMatch(/Index Scan using pk_state_threads/);
          expect(plan).toMatch(/Index Only Scan Backward using pk_state_checkpoints/);
          expect(plan).not.toMatch(/Seq Scan|Aggregate/);
        }
        await saver.sql.run("DELETE FROM state_threads WHERE id LIKE 'bulk-%'", []);
      },
      120_000,
    );

    it_(
      "a leased thread refuses a second writer with THREAD_LEASED; a dead owner's lease is taken over",
      async () => {
        const other = saverOn(test.store, { ownerId: "other-host:1:abc" });
        await grow(saver, "leased", 1);
        await acquireLease(saver.sql, "leased", saver.ownerId, { now: Date.now(), ttlMs: 60_000 });
        await expect(
          acquireLease(other.sql, "leased", other.ownerId, { now: Date.now(), ttlMs: 60_000 }),
        ).rejects.toMatchObject({
          code: "THREAD_LEASED",
          message: expect.stringContaining(saver.ownerId),
        });
        await expect(
          other.put(threadConfig("leased"), checkpointOf({ x: 1 }, { x: 1 }), metadataOf(0), {
            x: 1,
          }),
        ).rejects.toMatchObject({ code: "THREAD_LEASED" });
        expect((await saver.getTuple(threadConfig("leased")))?.checkpoint.channel_values.step).toBe(
          0,
        );
        // A lease held by a process of this host that no longer exists is taken over at once.
        const hostname = saver.ownerId.split(":")[0];
        await saver.sql.run("UPDATE state_threads SET lease_owner = ? WHERE id = ?", [
          `${hostname}:999999:dead`,
          "leased",
        ]);
        await acquireLease(other.sql, "leased", `${hostname}:${process.pid}:new`, {
          now: Date.now(),
          ttlMs: 1000,
        });
        expect((await saver.getThread("leased")).leaseOwner).toBe(`${hostname}:${process.pid}:new`);
      },
    );

    it_(
      "a writer that committed a moment ago is refused as soon as another owner leases the thread",
      async () => {
        // The savers check the lease inside each step's own commit; a writer that touched the
        // thread less than a second ago takes the shortest path, which must refuse it too.
        const other = saverOn(test.store, { ownerId: "other-host:2:def" });
        const { config } = await grow(saver, "taken", 2);
        await acquireLease(other.sql, "taken", other.ownerId, { now: Date.now(), ttlMs: 60_000 });
        await expect(
          saver.put(config, checkpointOf({ x: 1 }, { x: 9 }), metadataOf(2), { x: 9 }),
        ).rejects.toMatchObject({ code: "THREAD_LEASED" });
        expect((await other.getTuple(threadConfig("taken")))?.metadata.step).toBe(1);
      },
    );

    it_(
      "a step with a blob and writes, moments after the last, is refused whole when another owner leases the thread",
      async () => {
        // SQLite checks such a step's lease in its checkpoint's insert, written first: a refusal
        // must leave none of the step's rows (blob, folded or loose writes) behind.
        const other = saverOn(test.store, { ownerId: "other-host:3:ghi" });
        const pad = "x".repeat(200);
        const { config, messages } = await grow(saver, "taken-blob", 2, pad);
        // grow's last pending writes are queued, not committed: commit them before counting, or
        // the queue may commit them (rightly: they predate the lease) between the two counts.
        await saver.flush();
        const before = await Promise.all(
          ["state_checkpoints", "state_checkpoint_blobs", "state_checkpoint_writes"].map((t) =>
            countRows(saver, t, "taken-blob"),
          ),
        );
        await acquireLease(other.sql, "taken-blob", other.ownerId, {
          now: Date.now(),
          ttlMs: 60_000,
        });
        const grown = messages.concat([`m2${pad}`]);
        // A task's writes queued in the same turn as the step: they share its refused commit.
        const writes = saver.putWrites(config, [["messages", [`next2${pad}`]]], "task-2");
        await expect(
          saver.put(
            config,
            checkpointOf({ messages: grown, step: 2 }, { messages: 3, step: 3 }),
            metadataOf(2),
            { messages: 3, step: 3 },
          ),
        ).rejects.toMatchObject({ code: "THREAD_LEASED" });
        await writes.catch(() => undefined);
        await saver.flush().catch(() => undefined);
        const after = await Promise.all(
          ["state_checkpoints", "state_checkpoint_blobs", "state_checkpoint_writes"].map((t) =>
            countRows(saver, t, "taken-blob"),
          ),
        );
        expect(after).toEqual(before);
        expect((await other.getTuple(threadConfig("taken-blob")))?.metadata.step).toBe(1);
      },
    );

    it_(
      "a new thread's first step reads nothing more than the run's read of its latest checkpoint",
      async () => {
        const fresh = saverOn(test.store);
        const reads: string[] = [];
        const all = fresh.sql.all.bind(fresh.sql);
        fresh.sql.all = (sql, params) => {
          reads.push(sql);
          return all(sql, params);
        };
        expect(await fresh.getTuple(threadConfig("new-place"))).toBeUndefined();
        const config = await fresh.put(
          threadConfig("new-place"),
          checkpointOf({ step: 0 }, { step: 1 }),
          metadataOf(0),
          { step: 1 },
        );
        await fresh.put(config, checkpointOf({ step: 1 }, { step: 2 }), metadataOf(1), {
          step: 2,
        });
        expect(reads).toHaveLength(1);
        const tuple = await fresh.getTuple(threadConfig("new-place"));
        expect(tuple?.checkpoint.channel_values.step).toBe(1);
        // Numbered from 1, as a read of the place's highest seq would have numbered them.
        const seqs = await fresh.sql.all<{ seq: number | string }>(
          "SELECT seq FROM state_checkpoints WHERE thread_id = ? ORDER BY seq",
          ["new-place"],
        );
        expect(seqs.map((row) => Number(row.seq))).toEqual([1, 2]);
      },
    );

    it_(
      "a step with a blob on a thread deleted moments after its last step recreates the thread",
      async () => {
        const pad = "y".repeat(200);
        const { config } = await grow(saver, "gone-blob", 2, pad);
        // Deleted behind the saver's back (another process): its cache still says "touched".
        await saver.sql.run("DELETE FROM state_threads WHERE id = ?", ["gone-blob"]);
        const messages = [`a${pad}`, `b${pad}`];
        await saver.put(
          config,
          checkpointOf({ messages, step: 9 }, { messages: 9, step: 9 }),
          metadataOf(9),
          { messages: 9, step: 9 },
        );
        const tuple = await saver.getTuple(threadConfig("gone-blob"));
        expect(tuple?.checkpoint.channel_values.messages).toEqual(messages);
        expect((await saver.getThread("gone-blob")).threadId).toBe("gone-blob");
      },
    );

    it_(
      "async mode queues steps (bounded), exit mode holds them until flush; reads see them",
      async () => {
        const asyncSaver = saverOn(test.store, { durability: "async", maxQueuedSteps: 2 });
        let config = threadConfig("async-thread");
        for (let step = 0; step < 5; step++) {
          config = await asyncSaver.put(
            config,
            checkpointOf({ step }, { step: step + 1 }),
            metadataOf(step),
            {
              step: step + 1,
            },
          );
        }
        // Backpressure: with at most 2 steps queued, most of the 5 are already committed.
        expect(await countRows(saver, "state_checkpoints", "async-thread")).toBeGreaterThanOrEqual(
          3,
        );
        await asyncSaver.flush();
        expect(await countRows(saver, "state_checkpoints", "async-thread")).toBe(5);

        const exitSaver = saverOn(test.store, { durability: "exit", maxQueuedSteps: 100 });
        config = threadConfig("exit-thread");
        for (let step = 0; step < 5; step++) {
          config = await exitSaver.put(
            config,
            checkpointOf({ step }, { step: step + 1 }),
            metadataOf(step),
            {
              step: step + 1,
            },
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await countRows(saver, "state_checkpoints", "exit-thread")).toBe(0);
        expect(
          (await exitSaver.getTuple(threadConfig("exit-thread")))?.checkpoint.channel_values.step,
        ).toBe(4);
        expect(await countRows(saver, "state_checkpoints", "exit-thread")).toBe(5);
      },
    );

    it_(
      "durability passed on invoke (configurable.durability) reaches the saver for the whole run",
      async () => {
        const State = Annotation.Root({
          n: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
        });
        const builder = new StateGraph(State);
        const names = ["s0", "s1", "s2", "s3", "s4"];
        for (const name of names) builder.addNode(name, () => ({ n: 1 }));
        builder.addEdge(START, "s0");
        for (let i = 1; i < names.length; i++)
          builder.addEdge(names[i - 1] as "s0", names[i] as "s0");
        builder.addEdge("s4", END);
        const exitSaver = saverOn(test.store);
        const graph = builder.compile({ checkpointer: exitSaver });
        const result = await graph.invoke(
          { n: 0 },
          { configurable: { thread_id: "invoke-exit", durability: "exit" } },
        );
        expect(result).toEqual({ n: 5 });
        expect(await countRows(saver, "state_checkpoints", "invoke-exit")).toBe(0);
        await exitSaver.flush();
        expect(await countRows(saver, "state_checkpoints", "invoke-exit")).toBe(7);
        await expect(
          graph.invoke(
            { n: 0 },
            { configurable: { thread_id: "bad-mode", durability: "sometimes" } },
          ),
        ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
        // The engine's own option (LangGraph.js's `durability`): `exit` saves the final
        // checkpoint only, durable when invoke returns; `async` has committed every step by then.
        const plain = builder.compile({ checkpointer: saverOn(test.store) });
        await plain.invoke(
          { n: 0 },
          { configurable: { thread_id: "engine-exit" }, durability: "exit" },
        );
        expect(await countRows(saver, "state_checkpoints", "engine-exit")).toBe(1);
        await plain.invoke(
          { n: 0 },
          { configurable: { thread_id: "engine-async" }, durability: "async" },
        );
        expect(await countRows(saver, "state_checkpoints", "engine-async")).toBe(7);
        expect(
          (await plain.getState({ configurable: { thread_id: "engine-exit" } })).values,
        ).toEqual({ n: 5 });
      },
    );

    it_(
      "run store: succeeded, paused at an interrupt, failed with its error, canceled; bad moves refused",
      async () => {
        const runs = new RunStore(saver);
        const State = Annotation.Root({ answer: Annotation<string>() });
        const graph = new StateGraph(State)
          .addNode("ask", (state) => {
            if (state.answer === "boom") throw new Error("node exploded");
            return { answer: interrupt("name?") as string };
          })
          .addEdge(START, "ask")
          .addEdge("ask", END)
          .compile({ checkpointer: saver });
        const run = await runs.create({ graphId: "ask", labels: ["test"] });
        expect(run.status).toBe("pending");
        const paused = await runs.execute(run.id, (config) => graph.invoke({ answer: "" }, config));
        expect(paused.run.status).toBe("paused");
        expect(paused.run.startedAt).not.toBeNull();
        const failing = await runs.create();
        await expect(
          runs.execute(failing.id, (config) => graph.invoke({ answer: "boom" }, config)),
        ).rejects.toThrow("node exploded");
        const failed = await runs.get(failing.id);
        expect(failed.status).toBe("failed");
        expect(failed.error?.message).toContain("node exploded");
        const canceled = await runs.cancel(paused.run.id, "no longer needed");
        expect(canceled.status).toBe("canceled");
        await expect(runs.execute(paused.run.id, async () => null)).rejects.toMatchObject({
          code: "RUN_INVALID_TRANSITION",
        });
        const simple = await runs.create();
        const done = await runs.execute(simple.id, async () => "ok");
        expect(done.run.status).toBe("succeeded");
        expect(done.run.finishedAt).not.toBeNull();
        expect((await runs.list({ status: "failed" })).map((r) => r.id)).toContain(failing.id);
        expect((await runs.list({ threadId: run.threadId })).map((r) => r.id)).toEqual([run.id]);
        // The lease is released after each run.
        expect((await saver.getThread(run.threadId)).leaseOwner).toBeNull();
      },
    );

    it_(
      "run store: two executions of one thread in one process: the second gets THREAD_LEASED",
      async () => {
        // One saver, one lease owner: the database cannot tell the two executions apart.
        const runs = new RunStore(saver);
        const State = Annotation.Root({
          log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
        });
        let effects = 0;
        let release: () => void = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        let started: () => void = () => {};
        const inside = new Promise<void>((resolve) => {
          started = resolve;
        });
        const graph = new StateGraph(State)
          .addNode("charge", async () => {
            effects++;
            started();
            await held;
            return { log: ["charged"] };
          })
          .addEdge(START, "charge")
          .addEdge("charge", END)
          .compile({ checkpointer: saver });
        const first = await runs.create({ threadId: "one-thread" });
        const second = await runs.create({ threadId: "one-thread" });
        const running = runs.execute(first.id, (config) => graph.invoke({ log: [] }, config));
        await inside;
        await expect(
          runs.execute(second.id, (config) => graph.invoke({ log: [] }, config)),
        ).rejects.toMatchObject({ code: "THREAD_LEASED" });
        release();
        expect((await running).run.status).toBe("succeeded");
        expect(effects).toBe(1);
        // The loser is not left pending (it would look queued forever): failed, saying why.
        expect(await runs.get(second.id)).toMatchObject({
          status: "failed",
          error: { code: "THREAD_LEASED" },
        });
        // Released at the end: the thread may run again (the loser by an explicit retry).
        expect(
          (
            await runs.execute(second.id, (config) => graph.invoke(null, config), {
              retry: true,
            })
          ).run.status,
        ).toBe("succeeded");
        expect((await saver.getThread("one-thread")).leaseOwner).toBeNull();
      },
    );

    it_(
      "run store: a static interruptBefore/After pause is recorded paused and continues to succeeded",
      async () => {
        const runs = new RunStore(saver);
        const State = Annotation.Root({
          log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
        });
        const builder = new StateGraph(State)
          .addNode("a", () => ({ log: ["a"] }))
          .addNode("b", () => ({ log: ["b"] }))
          .addEdge(START, "a")
          .addEdge("a", "b")
          .addEdge("b", END);
        const before = builder.compile({ checkpointer: saver, interruptBefore: ["b"] });
        const run = await runs.create();
        const paused = await runs.execute(run.id, (config) => before.invoke({ log: [] }, config));
        expect(paused.run.status).toBe("paused");
        expect(paused.run.finishedAt).toBeNull();
        const done = await runs.execute(run.id, (config) => before.invoke(null, config));
        expect(done.run.status).toBe("succeeded");
        expect(done.result).toEqual({ log: ["a", "b"] });
        // interruptAfter the last node: nothing is left to run, yet the graph reports a pause.
        const after = builder.compile({ checkpointer: saver, interruptAfter: ["b"] });
        const last = await runs.create();
        const stopped = await runs.execute(last.id, (config) => after.invoke({ log: [] }, config));
        expect(stopped.run.status).toBe("paused");
        expect(
          (await runs.execute(last.id, (config) => after.invoke(null, config))).run.status,
        ).toBe("succeeded");
      },
    );

    /** A chain of `length` nodes, each adding one and waiting `pause` ms. */
    const chainGraph = (on: DurableSaver, length: number, pause = 0) => {
      const State = Annotation.Root({
        count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
      });
      let builder = new StateGraph(State) as unknown as {
        addNode(name: string, fn: unknown): typeof builder;
        addEdge(from: string, to: string): typeof builder;
        compile(options: { checkpointer: DurableSaver }): {
          invoke(input: unknown, config: unknown): Promise<{ count: number }>;
        };
      };
      for (let i = 0; i < length; i++)
        builder = builder.addNode(`n${i}`, async () => {
          if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
          return { count: 1 };
        });
      builder = builder.addEdge(START, "n0");
      for (let i = 1; i < length; i++) builder = builder.addEdge(`n${i - 1}`, `n${i}`);
      builder = builder.addEdge(`n${length - 1}`, END);
      return builder.compile({ checkpointer: on });
    };

    it_(
      "cancel stops a running run before its next step, from this process or another",
      async () => {
        const graph = chainGraph(saver, 40, 15);
        const steps = (threadId: string) => countRows(saver, "state_checkpoints", threadId);
        // In this process (another RunStore instance): at once.
        const runs = new RunStore(saver);
        const run = await runs.create({ threadId: "cancel-here" });
        const executing = runs.execute(run.id, (config) =>
          graph.invoke({ count: 0 }, { ...config, recursionLimit: 100 }),
        );
        while ((await steps("cancel-here")) < 4) await new Promise((r) => setTimeout(r, 5));
        const canceled = await new RunStore(saver).cancel(run.id, "changed my mind");
        expect(canceled.status).toBe("canceled");
        await expect(executing).rejects.toMatchObject({
          code: "ABORTED",
          details: expect.objectContaining({ runId: run.id, reason: "changed my mind" }),
        });
        const atStop = await steps("cancel-here");
        expect(atStop).toBeLessThan(20);
        await new Promise((r) => setTimeout(r, 100));
        expect(await steps("cancel-here")).toBe(atStop);
        expect((await runs.get(run.id)).status).toBe("canceled");
        expect((await saver.getThread("cancel-here")).leaseOwner).toBeNull();
        // From another process: the executing one sees the status within its poll interval.
        const polling = new RunStore(saver, { cancelPollMs: 20 });
        const other = await polling.create({ threadId: "cancel-there" });
        const running = polling.execute(other.id, (config) =>
          graph.invoke({ count: 0 }, { ...config, recursionLimit: 100 }),
        );
        while ((await steps("cancel-there")) < 4) await new Promise((r) => setTimeout(r, 5));
        await saver.sql.run(
          "UPDATE state_runs SET status = 'canceled', cancel_reason = 'elsewhere' WHERE id = ?",
          [other.id],
        );
        await expect(running).rejects.toMatchObject({ code: "ABORTED" });
        expect(await steps("cancel-there")).toBeLessThan(20);
        // A finished run cannot be canceled.
        const done = await runs.create({ threadId: "cancel-late" });
        await runs.execute(done.id, (config) => chainGraph(saver, 2).invoke({ count: 0 }, config));
        await expect(runs.cancel(done.id, "too late")).rejects.toMatchObject({
          code: "RUN_INVALID_TRANSITION",
        });
      },
    );

    it_("deleting a thread with its runs is one transaction: all or nothing", async () => {
      const runs = new RunStore(saver);
      for (const threadId of ["delete-both", "delete-blocked"]) {
        await grow(saver, threadId, 3);
        await runs.create({ threadId });
        await runs.create({ threadId });
      }
      expect(await saver.deleteThreadAndRuns("delete-both")).toEqual({ runsDeleted: 2 });
      expect(await countRows(saver, "state_runs", "delete-both")).toBe(0);
      expect(await countRows(saver, "state_checkpoints", "delete-both")).toBe(0);
      // The thread's delete fails (a trigger refuses it): its runs are not deleted either.
      if (test.store.dialect === "sqlite") {
        await saver.sql.run(
          "CREATE TEMP TRIGGER refuse_delete BEFORE DELETE ON state_threads WHEN OLD.id = 'delete-blocked' BEGIN SELECT RAISE(ABORT, 'refused'); END",
          [],
        );
      } else {
        await saver.sql.run(
          "CREATE FUNCTION refuse_delete() RETURNS trigger AS $$ BEGIN IF OLD.id = 'delete-blocked' THEN RAISE EXCEPTION 'refused'; END IF; RETURN OLD; END $$ LANGUAGE plpgsql",
          [],
        );
        await saver.sql.run(
          "CREATE TRIGGER refuse_delete BEFORE DELETE ON state_threads FOR EACH ROW EXECUTE FUNCTION refuse_delete()",
          [],
        );
      }
      try {
        await expect(saver.deleteThreadAndRuns("delete-blocked")).rejects.toThrow(/refused/);
        expect(await countRows(saver, "state_runs", "delete-blocked")).toBe(2);
        expect(await countRows(saver, "state_checkpoints", "delete-blocked")).toBe(3);
      } finally {
        if (test.store.dialect === "sqlite") await saver.sql.run("DROP TRIGGER refuse_delete", []);
        else {
          await saver.sql.run("DROP TRIGGER refuse_delete ON state_threads", []);
          await saver.sql.run("DROP FUNCTION refuse_delete()", []);
        }
      }
    });

    it_("a chain step is one write transaction: its task's writes and its checkpoint", async () => {
      // Count what reaches the database: on SQLite each write statement run outside a
      // transaction (autocommit) and each transaction; on Postgres each write statement (every
      // statement autocommits). Reads are not counted.
      let transactions = 0;
      const isWrite = (sql: string) =>
        /^\s*(INSERT|UPDATE|DELETE|WITH)/i.test(sql) && !/^\s*WITH RECURSIVE wanted/i.test(sql);
      let counted: DurableSaver;
      const native = test.store.native;
      if (native.dialect === "sqlite") {
        const database = native.database;
        counted = new SqliteSaver({
          database: {
            prepare: ((sql: string) => {
              const statement = database.prepare(sql);
              return new Proxy(statement, {
                get(target, property) {
                  const value = Reflect.get(target, property, target);
                  if (property === "run" && isWrite(sql))
                    return (...params: unknown[]) => {
                      if (!database.inTransaction) transactions++;
                      return target.run(...params);
                    };
                  return typeof value === "function" ? value.bind(target) : value;
                },
              });
            }) as typeof database.prepare,
            transaction: ((fn: (...args: unknown[]) => unknown) => {
              const wrapped = database.transaction(fn);
              return Object.assign(
                (...args: unknown[]) => {
                  transactions++;
                  return wrapped(...args);
                },
                {
                  immediate: (...args: unknown[]) => {
                    transactions++;
                    return wrapped.immediate(...args);
                  },
                },
              );
            }) as unknown as typeof database.transaction,
          },
        });
      } else {
        const pool = native.pool;
        counted = new PostgresSaver({
          pool: {
            query: ((...args: unknown[]) => {
              const first = args[0] as string | { text: string };
              if (isWrite(typeof first === "string" ? first : first.text)) transactions++;
              return (pool.query as (...a: unknown[]) => unknown)(...args);
            }) as typeof pool.query,
          },
        });
      }
      const length = 30;
      const config = {
        configurable: { thread_id: "one-transaction" },
        durability: "sync",
        recursionLimit: 100,
      };
      await chainGraph(counted, length).invoke({ count: 0 }, config);
      const checkpoints = await countRows(saver, "state_checkpoints", "one-transaction");
      // The input checkpoint, then one per node; no write table rows (each task's writes
      // committed in its step's checkpoint row).
      expect(checkpoints).toBe(length + 2);
      expect(await countRows(saver, "state_checkpoint_writes", "one-transaction")).toBe(0);
      // One transaction per checkpoint, but the input's: it shares step 0's.
      expect(transactions).toBe(checkpoints - 1);
    });

    it_("deleteThread removes checkpoints, values and writes of that thread only", async () => {
      await grow(saver, "delete-me", 5);
      const others = await countRows(saver, "state_checkpoint_blobs");
      const mine = await countRows(saver, "state_checkpoint_blobs", "delete-me");
      await saver.deleteThread("delete-me");
      for (const table of [
        "state_checkpoints",
        "state_checkpoint_blobs",
        "state_checkpoint_writes",
      ]) {
        expect(await countRows(saver, table, "delete-me")).toBe(0);
      }
      expect(await countRows(saver, "state_checkpoint_blobs")).toBe(others - mine);
      await expect(saver.getThread("delete-me")).rejects.toMatchObject({
        code: "THREAD_NOT_FOUND",
      });
    });
  });
}

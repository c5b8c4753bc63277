/**
 * Row layout 3 (each value written once in a step's row) and the rows of layout 2 it still
 * reads. Run by each durable saver's test file.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { valueHashOf } from "../../src/checkpoint/durable/blob-codec.js";
import { ROW_LAYOUT, rowHashOf } from "../../src/checkpoint/durable/value-map.js";
import {
  type CheckpointTuple,
  type DurableSaver,
  PostgresSaver,
  SqliteSaver,
} from "../../src/checkpoint/index.js";
import { Annotation, END, START, StateGraph } from "../../src/index.js";
import type { Store } from "../../src/store/index.js";
import type { TestStore } from "./support/databases.js";

function saverOn(store: Store): DurableSaver {
  return store.dialect === "sqlite" ? SqliteSaver.fromStore(store) : PostgresSaver.fromStore(store);
}

/** A chain whose nodes set a counter (last value) and a word (small values: inline). */
function chain(saver: DurableSaver) {
  const State = Annotation.Root({ count: Annotation<number>(), word: Annotation<string>() });
  let builder = new StateGraph(State) as unknown as {
    addNode(name: string, fn: unknown): typeof builder;
    addEdge(from: string, to: string): typeof builder;
    compile(options: { checkpointer: DurableSaver }): {
      invoke(input: unknown, config: unknown): Promise<unknown>;
    };
  };
  const names = ["a", "b", "c"];
  for (const name of names)
    builder = builder.addNode(name, (s: { count: number }) => ({
      count: s.count + 1,
      word: `${name}-wrote-${s.count + 1}`,
    }));
  builder = builder.addEdge(START, "a").addEdge("a", "b").addEdge("b", "c").addEdge("c", END);
  return builder.compile({ checkpointer: saver });
}

/** A loop whose node appends one long message a step to a list (a blob, stored as appends). */
function appender(saver: DurableSaver, turns: number) {
  const State = Annotation.Root({
    log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  });
  const builder = new StateGraph(State) as unknown as {
    addNode(name: string, fn: unknown): typeof builder;
    addEdge(from: string, to: string): typeof builder;
    addConditionalEdges(from: string, route: unknown, ends: Record<string, string>): typeof builder;
    compile(options: { checkpointer: DurableSaver }): {
      invoke(input: unknown, config: unknown): Promise<unknown>;
    };
  };
  return builder
    .addNode("say", (s: { log: string[] }) => ({
      log: [`line ${s.log.length}: ${"the quick brown fox jumps over the lazy dog ".repeat(3)}`],
    }))
    .addEdge(START, "say")
    .addConditionalEdges(
      "say",
      (s: { log: string[] }) => (s.log.length >= turns ? "end" : "again"),
      {
        again: "say",
        end: END,
      },
    )
    .compile({ checkpointer: saver });
}

interface RawRow {
  id: string;
  checkpoint_json: string;
  channel_seqs_json: string;
  metadata_json: string;
  step: number;
  source: string;
  parent_checkpoint_id: string | null;
}

async function rowsOf(saver: DurableSaver, threadId: string): Promise<RawRow[]> {
  return saver.sql.all<RawRow>(
    "SELECT id, checkpoint_json, channel_seqs_json, metadata_json, step, source, parent_checkpoint_id FROM state_checkpoints WHERE thread_id = ? ORDER BY id",
    [threadId],
  );
}

/**
 * Stores `text` as `row`'s channel map, with the row hash recomputed (and `head` merged into its
 * head), as an older layout or a damaged row would have it.
 */
async function rewriteChannelMap(
  saver: DurableSaver,
  threadId: string,
  row: RawRow,
  text: string,
  head: Record<string, unknown> = {},
): Promise<void> {
  const newHead = {
    ...JSON.parse(row.checkpoint_json),
    ...head,
    h: rowHashOf({
      channelSeqsJson: text,
      metadataJson: row.metadata_json,
      step: row.step,
      source: row.source,
      parentId: row.parent_checkpoint_id,
    }),
  };
  await saver.sql.run(
    "UPDATE state_checkpoints SET checkpoint_json = ?, channel_seqs_json = ? WHERE thread_id = ? AND id = ?",
    [JSON.stringify(newHead), text, threadId, row.id],
  );
}

async function history(saver: DurableSaver, threadId: string): Promise<CheckpointTuple[]> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: threadId } }))
    tuples.push(tuple);
  return tuples;
}

export function runRowLayoutSuite(options: {
  name: string;
  available?: () => Promise<boolean>;
  open(): Promise<TestStore>;
}): void {
  describe(`row layout: ${options.name}`, async () => {
    const available = options.available ? await options.available() : true;
    let test: TestStore;
    beforeAll(async () => {
      if (available) test = await options.open();
    });
    afterAll(async () => {
      if (available) await test.cleanup();
    });
    const it_ = available ? it : it.skip;

    it_("a step's row holds each value once; rows of layout 2 read the same", async () => {
      const saver = saverOn(test.store);
      const config = { configurable: { thread_id: "compact" }, durability: "sync" as const };
      await chain(saver).invoke({ count: 0, word: "start" }, config);
      const before = await history(saver, "compact");
      const rows = await rowsOf(saver, "compact");
      expect(rows).toHaveLength(before.length);
      // The step of node b: its value text appears once in the whole row (its entry), not in
      // its write or its metadata too; the thread id, source and step only in their columns.
      const stepB = rows.find((row) => row.channel_seqs_json.includes("b-wrote-2"));
      if (!stepB) throw new Error("no row for node b's step");
      const whole = stepB.checkpoint_json + stepB.channel_seqs_json + stepB.metadata_json;
      expect(whole.split("b-wrote-2")).toHaveLength(2);
      expect(whole).not.toContain("compact");
      expect(JSON.parse(stepB.checkpoint_json)).toMatchObject({ l: ROW_LAYOUT, m: 1 });
      expect(JSON.parse(stepB.metadata_json)).toEqual({ b: [0, 2] });
      const tupleB = before.find((tuple) => tuple.metadata.writes?.b !== undefined);
      expect(tupleB?.metadata).toEqual({
        source: "loop",
        step: tupleB?.metadata.step,
        parents: {},
        writes: { b: { count: 2, word: "b-wrote-2" } },
        thread_id: "compact",
      });
      expect(tupleB?.checkpoint.ts).toMatch(/^\d{4}-\d\d-\d\dT/);

      // The same thread as layout 2 wrote it: every value in full, the metadata whole.
      const byId = new Map(before.map((tuple) => [tuple.checkpoint.id, tuple]));
      for (const row of rows) {
        const tuple = byId.get(row.id);
        if (!tuple) throw new Error(`no tuple for ${row.id}`);
        const map = JSON.parse(row.channel_seqs_json) as {
          c: Record<string, unknown[]>;
          w?: unknown[][];
        };
        for (const write of map.w ?? [])
          if (write.length === 3) write.push(map.c[write[2] as string]?.[2]);
        const text = JSON.stringify(map);
        const head = { v: 1, ts: tuple.checkpoint.ts, l: 2, h: valueHashOf(text) };
        await saver.sql.run(
          "UPDATE state_checkpoints SET checkpoint_json = ?, channel_seqs_json = ?, metadata_json = ? WHERE thread_id = ? AND id = ?",
          [JSON.stringify(head), text, JSON.stringify(tuple.metadata), "compact", row.id],
        );
      }
      const old = await rowsOf(saver, "compact");
      expect(old.every((row) => JSON.parse(row.checkpoint_json).l === 2)).toBe(true);
      const reader = saverOn(test.store);
      expect(await history(reader, "compact")).toEqual(before);
      // A run goes on from a layout-2 checkpoint; its new rows are layout 3.
      await chain(reader).invoke({ count: 10, word: "again" }, config);
      const latest = await reader.getTuple(config);
      expect(latest?.checkpoint.channel_values).toEqual({ count: 13, word: "c-wrote-13" });
      const newest = (await rowsOf(reader, "compact")).at(-1);
      expect(JSON.parse(newest?.checkpoint_json ?? "{}").l).toBe(ROW_LAYOUT);
    });

    it_(
      "the row hash covers the metadata and the step, source and parent columns; rows of layout 3 (map only) still read",
      async () => {
        const saver = saverOn(test.store);
        const config = { configurable: { thread_id: "meta-hash" }, durability: "sync" as const };
        await chain(saver).invoke({ count: 0, word: "start" }, config);
        const before = await history(saver, "meta-hash");
        const rows = await rowsOf(saver, "meta-hash");
        const last = rows.at(-1);
        if (!last) throw new Error("no rows");
        const reader = () => saverOn(test.store).getTuple(config);
        const corrupt = {
          code: "CHECKPOINT_CORRUPT",
          details: expect.objectContaining({ checkpointId: last.id }),
        };
        // An edited metadata (a node's update pointing at other writes) is refused, not read.
        await saver.sql.run("UPDATE state_checkpoints SET metadata_json = ? WHERE id = ?", [
          JSON.stringify({ c: [0, 1] }),
          last.id,
        ]);
        await expect(reader()).rejects.toMatchObject(corrupt);
        await saver.sql.run("UPDATE state_checkpoints SET metadata_json = ? WHERE id = ?", [
          last.metadata_json,
          last.id,
        ]);
        expect((await reader())?.checkpoint.id).toBe(last.id);
        // So are an edited step and source (the compact metadata is rebuilt from them).
        await saver.sql.run("UPDATE state_checkpoints SET step = step + 5 WHERE id = ?", [last.id]);
        await expect(reader()).rejects.toMatchObject(corrupt);
        await saver.sql.run("UPDATE state_checkpoints SET step = step - 5 WHERE id = ?", [last.id]);
        await saver.sql.run("UPDATE state_checkpoints SET source = 'update' WHERE id = ?", [
          last.id,
        ]);
        await expect(reader()).rejects.toMatchObject(corrupt);
        await saver.sql.run("UPDATE state_checkpoints SET source = 'loop' WHERE id = ?", [last.id]);
        expect((await reader())?.checkpoint.id).toBe(last.id);

        // A row of layout 3 hashed its map only: it still reads.
        for (const row of rows) {
          const head = {
            ...JSON.parse(row.checkpoint_json),
            l: 3,
            h: valueHashOf(row.channel_seqs_json),
          };
          await saver.sql.run("UPDATE state_checkpoints SET checkpoint_json = ? WHERE id = ?", [
            JSON.stringify(head),
            row.id,
          ]);
        }
        expect(await history(saverOn(test.store), "meta-hash")).toEqual(before);
      },
    );

    it_(
      "a write whose text is the row's own blob (an appended item) is stored once; rows of layout 4 read the same",
      async () => {
        const saver = saverOn(test.store);
        const config = { configurable: { thread_id: "blob-write" }, durability: "sync" as const };
        await appender(saver, 4).invoke({ log: ["first"] }, config);
        const before = await history(saver, "blob-write");
        const rows = await rowsOf(saver, "blob-write");
        const blobs = await saver.sql.all<{ checkpoint_seq: number; value_json: string }>(
          "SELECT checkpoint_seq, value_json FROM state_checkpoint_blobs WHERE thread_id = ? AND channel = 'log'",
          ["blob-write"],
        );
        // The third line: once in the blob that appends it, not again in the row's pending write.
        const line = "line 3: the quick";
        const stored = rows.map((r) => r.channel_seqs_json + r.metadata_json);
        expect(blobs.filter((b) => b.value_json.includes(line))).toHaveLength(1);
        expect(stored.filter((text) => text.includes(line))).toHaveLength(0);
        const folded = rows.filter((r) =>
          (JSON.parse(r.channel_seqs_json).w ?? []).some(
            (w: unknown[]) => w.length === 3 && w[2] === "log",
          ),
        );
        expect(folded.length).toBe(2); // lines 2 and 3 (line 1 went into a full copy)
        const withLine = before.find((t) => JSON.stringify(t.metadata.writes ?? {}).includes(line));
        expect(withLine?.metadata.writes).toEqual({
          say: { log: [expect.stringContaining(line)] },
        });
        // A listing filtered on metadata rebuilds it from the blob too.
        const filtered: CheckpointTuple[] = [];
        for await (const t of saverOn(test.store).list(
          { configurable: { thread_id: "blob-write" } },
          { filter: { step: withLine?.metadata.step } },
        ))
          filtered.push(t);
        expect(filtered.map((t) => t.metadata)).toEqual([withLine?.metadata]);
        // A parent's pending writes read from its child row and the child's blob.
        const parentId = withLine?.parentConfig?.configurable?.checkpoint_id;
        const parent = await saverOn(test.store).getTuple({
          configurable: { thread_id: "blob-write", checkpoint_id: parentId },
        });
        expect(parent?.pendingWrites).toEqual(
          before.find((t) => t.checkpoint.id === parentId)?.pendingWrites,
        );
        expect(JSON.stringify(parent?.pendingWrites)).toContain(line);

        // The same thread as layout 4 wrote it: each such write with its text in the row.
        const bySeq = new Map(blobs.map((b) => [b.checkpoint_seq, b.value_json]));
        for (const row of rows) {
          const map = JSON.parse(row.channel_seqs_json) as {
            c: Record<string, unknown[]>;
            w?: unknown[][];
          };
          for (const write of map.w ?? []) {
            const entry = map.c[write[2] as string];
            if (write.length === 3 && entry?.[1] !== 0) write.push(bySeq.get(entry?.[1] as number));
          }
          await rewriteChannelMap(saver, "blob-write", row, JSON.stringify(map), { l: 4 });
        }
        const old = await rowsOf(saver, "blob-write");
        expect(old.every((row) => JSON.parse(row.checkpoint_json).l === 4)).toBe(true);
        expect(old.filter((r) => r.channel_seqs_json.includes(line))).toHaveLength(1);
        const reader = saverOn(test.store);
        expect(await history(reader, "blob-write")).toEqual(before);
        // A run goes on from a layout-4 checkpoint; its new rows are the current layout.
        await appender(reader, 6).invoke({ log: ["again"] }, config);
        const latest = await reader.getTuple(config);
        expect(latest?.checkpoint.channel_values.log).toHaveLength(6);
        expect(
          JSON.parse((await rowsOf(reader, "blob-write")).at(-1)?.checkpoint_json ?? "{}").l,
        ).toBe(ROW_LAYOUT);

        // A layout-4 row may not point a write at a blob: refused as a damaged write.
        const lastOld = old.at(-1);
        if (!lastOld) throw new Error("no rows");
        const map = JSON.parse(lastOld.channel_seqs_json) as { w: unknown[][] };
        for (const write of map.w) if (write[2] === "log") write.length = 3;
        await rewriteChannelMap(saver, "blob-write", lastOld, JSON.stringify(map));
        await expect(
          saverOn(test.store).getTuple({
            configurable: { thread_id: "blob-write", checkpoint_id: lastOld.id },
          }),
        ).rejects.toMatchObject({
          code: "CHECKPOINT_CORRUPT",
          message: expect.stringContaining('pending write of channel "log"'),
        });
      },
    );

    it_("a write stored as its row's blob is refused when that blob is damaged", async () => {
      const saver = saverOn(test.store);
      const config = { configurable: { thread_id: "blob-write-bad" }, durability: "sync" as const };
      await appender(saver, 3).invoke({ log: ["first"] }, config);
      const rows = await rowsOf(saver, "blob-write-bad");
      const child = rows.find((r) =>
        (JSON.parse(r.channel_seqs_json).w ?? []).some(
          (w: unknown[]) => w.length === 3 && w[2] === "log",
        ),
      );
      if (!child?.parent_checkpoint_id) throw new Error("no row with a blob write");
      const map = JSON.parse(child.channel_seqs_json) as { c: { log: [unknown, number] } };
      await saver.sql.run(
        "UPDATE state_checkpoint_blobs SET value_json = ? WHERE thread_id = ? AND channel = 'log' AND checkpoint_seq = ?",
        ['["edited"]', "blob-write-bad", map.c.log[1]],
      );
      // Read as the parent's pending write (through the child row), it fails its blob's hash.
      await expect(
        saverOn(test.store).getTuple({
          configurable: { thread_id: "blob-write-bad", checkpoint_id: child.parent_checkpoint_id },
        }),
      ).rejects.toMatchObject({
        code: "CHECKPOINT_CORRUPT",
        message: expect.stringContaining('pending write of channel "log"'),
      });
      // So does a listing, which reads the child's blob with the parent's values.
      await expect(history(saverOn(test.store), "blob-write-bad")).rejects.toMatchObject({
        code: "CHECKPOINT_CORRUPT",
      });
      // Read as the child itself, its value fails the same hash.
      await expect(
        saverOn(test.store).getTuple({
          configurable: { thread_id: "blob-write-bad", checkpoint_id: child.id },
        }),
      ).rejects.toMatchObject({ code: "CHECKPOINT_CORRUPT" });
    });

    it_("a write stored without its value needs its channel's inline entry", async () => {
      const saver = saverOn(test.store);
      const config = { configurable: { thread_id: "broken-ref" }, durability: "sync" as const };
      await chain(saver).invoke({ count: 0, word: "start" }, config);
      const rows = await rowsOf(saver, "broken-ref");
      const last = rows.at(-1);
      if (!last) throw new Error("no rows");
      // The entry of `word` gone (hash recomputed): the write that shares its text is unreadable.
      const map = JSON.parse(last.channel_seqs_json) as { c: Record<string, unknown> };
      delete map.c.word;
      await rewriteChannelMap(saver, "broken-ref", last, JSON.stringify(map));
      await expect(saverOn(test.store).getTuple(config)).rejects.toMatchObject({
        code: "CHECKPOINT_CORRUPT",
        message: expect.stringContaining('pending write of channel "word"'),
      });
    });
  });
}

/**
 * The rowid-tables migration (SQLite, `*_checkpoint_rowid_tables.sql`) rebuilds the checkpoint
 * and blob tables as rowid tables, their old primary keys unique indexes: the rows written before
 * it survive, the old keys stay unique, the thread's cascade still deletes them, new rows are
 * appended after the old ones (ascending rowids), and the saver's hot reads seek the unique
 * indexes rather than scan a table.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "../../src/checkpoint/index.js";
import { END, MessagesAnnotation, START, StateGraph } from "../../src/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { sqliteMigrationsBefore } from "./support/migrations-before.js";

const dir = mkdtempSync(join(tmpdir(), "keel-035-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function database(store: Store) {
  if (store.native.dialect !== "sqlite") throw new Error("expected a SQLite store");
  return store.native.database;
}

const INSERT_CHECKPOINT = `INSERT INTO state_checkpoints (thread_id, checkpoint_ns, id, seq, format_version, step, source, checkpoint_json, channel_seqs_json, metadata_json, created_at, is_below_latest)
  VALUES (?, '', ?, ?, 1, ?, ?, '{}', '{}', '{}', 1, ?)`;
const INSERT_BLOB = `INSERT INTO state_checkpoint_blobs (thread_id, checkpoint_ns, channel, checkpoint_seq, version, encoding, value_json, value_hash)
  VALUES (?, '', 'messages', ?, '1', ?, '[]', 'h')`;

/** A graph whose one node appends a message per step, `steps` times: an append chain. */
function chatty(saver: SqliteSaver, steps: number) {
  return new StateGraph(MessagesAnnotation)
    .addNode("talk", (state) => ({ messages: [new AIMessage(`reply ${state.messages.length}`)] }))
    .addEdge(START, "talk")
    .addConditionalEdges("talk", (state) => (state.messages.length > steps ? END : "talk"))
    .compile({ checkpointer: saver });
}

describe("the rowid-tables migration (SQLite): the checkpoint tables as rowid tables", () => {
  it("keeps every row, the old keys unique and the cascade; new rows are appended after them", async () => {
    const db = join(dir, "keel.db");
    const before = await openStore({
      db,
      backupBeforeMigrate: false,
      migrationsDir: sqliteMigrationsBefore(dir, "_checkpoint_rowid_tables.sql"),
    });
    const old = SqliteSaver.fromStore(before);
    for (const thread of ["t", "u"])
      await old.sql.run("INSERT INTO state_threads (id, created_at, updated_at) VALUES (?, 1, 1)", [
        thread,
      ]);
    // Written out of key order: the migration copies them in key order.
    await old.sql.run(INSERT_CHECKPOINT, ["u", "0001", 1, 0, "input", 0]);
    await old.sql.run(INSERT_CHECKPOINT, ["t", "0002", 2, 1, "fork", 1]);
    await old.sql.run(INSERT_CHECKPOINT, ["t", "0001", 1, 0, "input", 0]);
    await old.sql.run(INSERT_BLOB, ["t", 2, "append"]);
    await old.sql.run(INSERT_BLOB, ["t", 1, "full"]);
    const tableSql = (store: Store, name: string) =>
      database(store).prepare("SELECT sql FROM sqlite_schema WHERE name = ?").pluck().get(name);
    expect(tableSql(before, "state_checkpoints")).toMatch(/WITHOUT ROWID/);
    await before.close();

    const after = await openStore({ db, backupBeforeMigrate: false });
    const saver = SqliteSaver.fromStore(after);
    for (const table of ["state_checkpoints", "state_checkpoint_blobs"])
      expect(tableSql(after, table)).not.toMatch(/WITHOUT ROWID/);
    expect(
      await saver.sql.all(
        "SELECT rowid, thread_id, id, seq, source, is_below_latest FROM state_checkpoints ORDER BY rowid",
        [],
      ),
    ).toEqual([
      { rowid: 1, thread_id: "t", id: "0001", seq: 1, source: "input", is_below_latest: 0 },
      { rowid: 2, thread_id: "t", id: "0002", seq: 2, source: "fork", is_below_latest: 1 },
      { rowid: 3, thread_id: "u", id: "0001", seq: 1, source: "input", is_below_latest: 0 },
    ]);
    expect(
      await saver.sql.all(
        "SELECT rowid, checkpoint_seq, encoding FROM state_checkpoint_blobs ORDER BY rowid",
        [],
      ),
    ).toEqual([
      { rowid: 1, checkpoint_seq: 1, encoding: "full" },
      { rowid: 2, checkpoint_seq: 2, encoding: "append" },
    ]);
    // The old keys are unique; the CHECKs and the partial seq index are as before.
    await expect(saver.sql.run(INSERT_CHECKPOINT, ["t", "0001", 3, 2, "loop", 0])).rejects.toThrow(
      /UNIQUE constraint failed: state_checkpoints\.thread_id, state_checkpoints\.checkpoint_ns, state_checkpoints\.id/,
    );
    await expect(saver.sql.run(INSERT_BLOB, ["t", 2, "full"])).rejects.toThrow(
      /UNIQUE constraint failed: state_checkpoint_blobs\.thread_id/,
    );
    await expect(saver.sql.run(INSERT_CHECKPOINT, ["t", "0003", 3, 2, "loops", 0])).rejects.toThrow(
      /CHECK constraint failed: ck_state_checkpoints_source/,
    );
    await expect(saver.sql.run(INSERT_BLOB, ["t", 3, "delta"])).rejects.toThrow(
      /CHECK constraint failed: ck_state_checkpoint_blobs_encoding/,
    );
    expect(tableSql(after, "ix_state_checkpoints_thread_id_checkpoint_ns_seq")).toMatch(
      /WHERE is_below_latest = 1/,
    );
    // A new row goes after every migrated one, whatever its key (the table's right edge).
    await saver.sql.run(INSERT_CHECKPOINT, ["t", "0000", 0, 0, "fork", 1]);
    expect(
      await saver.sql.all("SELECT rowid FROM state_checkpoints WHERE id = '0000'", []),
    ).toEqual([{ rowid: 4 }]);
    // A foreign key to a missing thread is refused; deleting a thread deletes its rows.
    await expect(saver.sql.run(INSERT_CHECKPOINT, ["v", "0001", 1, 0, "input", 0])).rejects.toThrow(
      /FOREIGN KEY/,
    );
    await saver.sql.run("DELETE FROM state_threads WHERE id = 't'", []);
    expect(await saver.sql.all("SELECT thread_id, id FROM state_checkpoints", [])).toEqual([
      { thread_id: "u", id: "0001" },
    ]);
    expect(await saver.sql.all("SELECT channel FROM state_checkpoint_blobs", [])).toEqual([]);
    await after.close();
  });

  it("the saver's reads seek the unique indexes: no table scanned, a chain read seek by seek", async () => {
    const store = await openStore({ db: join(dir, "reads.db"), backupBeforeMigrate: false });
    const writer = SqliteSaver.fromStore(store);
    const config = { configurable: { thread_id: "chat" } };
    await chatty(writer, 12).invoke({ messages: [new HumanMessage("hello")] }, config);
    // A fresh saver (no cache): its reads are the statements a restarted process runs.
    const reader = SqliteSaver.fromStore(store);
    const statements: string[] = [];
    const all = reader.sql.all.bind(reader.sql);
    reader.sql.all = (sql, params) => {
      statements.push(sql);
      return all(sql, params);
    };
    const latest = await reader.getTuple(config);
    expect(latest?.checkpoint.channel_values.messages).toHaveLength(13);
    const older = [];
    for await (const tuple of reader.list(config, { limit: 4 })) older.push(tuple);
    await reader.getTuple(older[3]?.config ?? config);
    await reader.getThread("chat");
    const blobReads = statements.filter((sql) => /FROM state_checkpoint_blobs/.test(sql));
    const checkpointReads = statements.filter((sql) => /FROM state_checkpoints/.test(sql));
    expect(blobReads.length).toBeGreaterThan(0);
    expect(checkpointReads.length).toBeGreaterThan(0);
    const native = database(store);
    const plan = (sql: string) =>
      (
        native
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...new Array<null>(sql.split("?").length - 1).fill(null)) as Array<{
          detail: string;
        }>
      ).map((row) => row.detail);
    for (const sql of new Set(statements)) {
      const details = plan(sql);
      // A scan may read the query's own constants or recursive rows, never a stored table.
      expect(
        details.filter((d) => /^SCAN (state_|b\b|c\b USING|t\b)/.test(d)),
        sql,
      ).toEqual([]);
      const seeks = details.filter((d) => /^SEARCH /.test(d));
      if (/FROM state_checkpoint_blobs/.test(sql))
        // Each value and each step of its append chain: the whole blob key, one seek.
        for (const seek of seeks.filter((d) => /^SEARCH b /.test(d) || /blobs/.test(d)))
          expect(seek, sql).toMatch(
            /USING INDEX ix_state_checkpoint_blobs_thread_id_checkpoint_ns_checkpoint_seq_channel \(thread_id=\? AND checkpoint_ns=\? AND checkpoint_seq=\? AND channel=\?\)/,
          );
      if (/FROM state_checkpoints/.test(sql))
        expect(seeks.join(" | "), sql).toMatch(
          /USING (COVERING )?INDEX ix_state_checkpoints_thread_id_checkpoint_ns_id \(thread_id=\?/,
        );
    }
    await store.close();
  });
});

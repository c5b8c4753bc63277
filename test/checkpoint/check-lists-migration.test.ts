/**
 * The checkpoint-CHECK migration (SQLite, `*_checkpoint_check_lists.sql`) rebuilds the checkpoint tables with their enum CHECKs as chains of
 * equalities: the rows written before it survive, and a step's insert no longer builds a
 * temporary b-tree (`OpenEphemeral`) of an `IN` list for every row it writes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "../../src/checkpoint/index.js";
import { openStore } from "../../src/store/index.js";
import { sqliteMigrationsBefore } from "./support/migrations-before.js";

const dir = mkdtempSync(join(tmpdir(), "keel-034-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const INSERT_CHECKPOINT = `INSERT INTO state_checkpoints (thread_id, checkpoint_ns, id, seq, format_version, step, source, checkpoint_json, channel_seqs_json, metadata_json, created_at, is_below_latest)
  VALUES (?, '', ?, ?, 1, ?, ?, '{}', '{}', '{}', 1, ?)`;
const INSERT_BLOB = `INSERT INTO state_checkpoint_blobs (thread_id, checkpoint_ns, channel, checkpoint_seq, version, encoding, value_json, value_hash)
  VALUES ('t', '', 'messages', ?, '1', ?, '[]', 'h')`;

describe("the checkpoint-CHECK migration (SQLite): the checkpoint tables' CHECKs without IN lists", () => {
  it("keeps every row and key, and a step's insert builds no temporary b-tree", async () => {
    const db = join(dir, "keel.db");
    const before = await openStore({
      db,
      backupBeforeMigrate: false,
      migrationsDir: sqliteMigrationsBefore(dir, "_checkpoint_check_lists.sql"),
    });
    const old = SqliteSaver.fromStore(before);
    await old.sql.run(
      "INSERT INTO state_threads (id, created_at, updated_at) VALUES ('t', 1, 1)",
      [],
    );
    await old.sql.run(INSERT_CHECKPOINT, ["t", "0001", 1, 0, "input", 0]);
    await old.sql.run(INSERT_CHECKPOINT, ["t", "0002", 2, 1, "fork", 1]);
    await old.sql.run(INSERT_BLOB, [1, "full"]);
    await old.sql.run(INSERT_BLOB, [2, "append"]);
    const database = before.native.dialect === "sqlite" ? before.native.database : undefined;
    expect(opcodes(database, INSERT_CHECKPOINT)).toContain("OpenEphemeral");
    await before.close();

    const after = await openStore({ db, backupBeforeMigrate: false });
    const saver = SqliteSaver.fromStore(after);
    expect(
      await saver.sql.all(
        "SELECT id, seq, source, is_below_latest FROM state_checkpoints ORDER BY id",
        [],
      ),
    ).toEqual([
      { id: "0001", seq: 1, source: "input", is_below_latest: 0 },
      { id: "0002", seq: 2, source: "fork", is_below_latest: 1 },
    ]);
    expect(
      await saver.sql.all(
        "SELECT checkpoint_seq, encoding FROM state_checkpoint_blobs ORDER BY checkpoint_seq",
        [],
      ),
    ).toEqual([
      { checkpoint_seq: 1, encoding: "full" },
      { checkpoint_seq: 2, encoding: "append" },
    ]);
    // Keys, the partial seq index and the cascade from the thread are as before.
    await expect(saver.sql.run(INSERT_CHECKPOINT, ["t", "0001", 3, 2, "loop", 0])).rejects.toThrow(
      /UNIQUE/,
    );
    const migrated = after.native.dialect === "sqlite" ? after.native.database : undefined;
    expect(
      migrated
        ?.prepare(
          "SELECT sql FROM sqlite_schema WHERE name = 'ix_state_checkpoints_thread_id_checkpoint_ns_seq'",
        )
        .pluck()
        .get(),
    ).toMatch(/WHERE is_below_latest = 1/);
    expect(opcodes(migrated, INSERT_CHECKPOINT)).not.toContain("OpenEphemeral");
    expect(opcodes(migrated, INSERT_BLOB)).not.toContain("OpenEphemeral");
    await saver.sql.run("DELETE FROM state_threads WHERE id = 't'", []);
    expect(await saver.sql.all("SELECT id FROM state_checkpoints", [])).toEqual([]);
    expect(await saver.sql.all("SELECT channel FROM state_checkpoint_blobs", [])).toEqual([]);
    await after.close();
  });
});

/** The opcodes SQLite compiles a statement to (`EXPLAIN`; its parameters bound to null). */
function opcodes(
  database: { prepare(sql: string): { all(...values: unknown[]): unknown[] } } | undefined,
  sql: string,
): string[] {
  if (!database) throw new Error("expected a SQLite store");
  const parameters = new Array<null>(sql.split("?").length - 1).fill(null);
  const program = database.prepare(`EXPLAIN ${sql}`).all(...parameters) as Array<{
    opcode: string;
  }>;
  return program.map((row) => row.opcode);
}

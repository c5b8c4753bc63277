/**
 * Migration 032 on a database that already has checkpoints: rows whose seq is above the seq of
 * their place's latest row (greatest id) are marked `is_below_latest`, so the saver's next seq
 * (the greater of the latest row's and the highest marked one's) is still above every seq.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readMaxSeq } from "../../src/checkpoint/durable/queries.js";
import { PostgresSaver, SqliteSaver } from "../../src/checkpoint/index.js";
import { kernelMigrationsDir, openStore, type Store } from "../../src/store/index.js";
import { createTestDatabase, postgresAvailable } from "../support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "keel-032-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The kernel migrations before 032. */
function migrationsBefore032(dialect: "sqlite" | "postgres"): string {
  const target = join(dir, `before-032-${dialect}`);
  cpSync(kernelMigrationsDir(dialect), target, { recursive: true });
  for (const file of readdirSync(target))
    if (Number(file.slice(0, 3)) >= 32) rmSync(join(target, file));
  return target;
}

async function checkMarking(
  dialect: "sqlite" | "postgres",
  open: (migrationsDir?: string) => Promise<Store>,
): Promise<void> {
  const before = await open(migrationsBefore032(dialect));
  const saver =
    before.dialect === "sqlite" ? SqliteSaver.fromStore(before) : PostgresSaver.fromStore(before);
  const insert = (id: string, seq: number) =>
    saver.sql.run(
      `INSERT INTO state_checkpoints (thread_id, checkpoint_ns, id, seq, format_version, step, source, checkpoint_json, channel_seqs_json, metadata_json, created_at)
       VALUES ('t', '', ?, ?, 1, ?, 'loop', '{}', '{}', '{}', 1)`,
      [id, seq, seq],
    );
  await saver.sql.run(
    "INSERT INTO state_threads (id, created_at, updated_at) VALUES ('t', 1, 1)",
    [],
  );
  // Written in seq order 1, 2, 3; the third sorts between the first two (a clock behind).
  await insert("0001", 1);
  await insert("0003", 2);
  await insert("0002", 3);
  await before.close();
  const after = await open();
  const migrated =
    after.dialect === "sqlite" ? SqliteSaver.fromStore(after) : PostgresSaver.fromStore(after);
  const rows = await migrated.sql.all<{ id: string; below: number | string }>(
    "SELECT id, is_below_latest AS below FROM state_checkpoints ORDER BY id",
    [],
  );
  expect(rows.map((row) => [row.id, Number(row.below)])).toEqual([
    ["0001", 0],
    ["0002", 1],
    ["0003", 0],
  ]);
  expect((await readMaxSeq(migrated.sql, { threadId: "t", checkpointNs: "" })).maxSeq).toBe(3);
  await after.close();
}

describe("migration 032 marks existing rows above their place's latest seq", () => {
  it("SQLite", async () => {
    const db = join(dir, "keel.db");
    const open = (migrationsDir?: string) =>
      openStore({ db, backupBeforeMigrate: false, ...(migrationsDir ? { migrationsDir } : {}) });
    await checkMarking("sqlite", open);
  });

  it("Postgres", async (context) => {
    if (!(await postgresAvailable())) return context.skip();
    const database = await createTestDatabase("migration_032");
    try {
      const open = (migrationsDir?: string) =>
        openStore({ db: database.url, ...(migrationsDir ? { migrationsDir } : {}) });
      await checkMarking("postgres", open);
    } finally {
      await database.drop();
    }
  });
});

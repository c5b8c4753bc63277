/**
 * Group commit on Postgres (`postgresBatchedWrite`): writes that arrive while one commits share
 * the next transaction; a failing write in a shared transaction fails alone, the others commit.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresBatchedWrite } from "../../src/runtime/db/postgres-write-batch.js";
import { createTestDatabase, postgresAvailable } from "../support/postgres.js";

const available = await postgresAvailable();
const it_ = available ? it : it.skip;

describe("postgresBatchedWrite", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  beforeAll(async () => {
    if (!available) return;
    database = await createTestDatabase("write_batch");
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    await pool.query("CREATE TABLE t (id int PRIMARY KEY, v text NOT NULL)");
  });
  afterAll(async () => {
    if (!available) return;
    await pool.end();
    await database.drop();
  });

  const insert = (id: number, v: string | null) =>
    postgresBatchedWrite(pool, {
      name: "write_batch_insert",
      text: "INSERT INTO t (id, v) VALUES ($1, $2) RETURNING xmin::text AS tx",
      values: [id, v],
    });

  it_("commits the writes that waited in one transaction, each answered", async () => {
    const results = await Promise.all([1, 2, 3, 4, 5].map((id) => insert(id, `v${id}`)));
    const txs = results.map((result) => (result.rows[0] as { tx: string }).tx);
    // The first commits alone at once; the four that arrived meanwhile share the next commit.
    expect(new Set(txs.slice(1)).size).toBe(1);
    expect(txs[0]).not.toBe(txs[1]);
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM t WHERE id <= 5");
    expect(rows[0].n).toBe(5);
  });

  it_("fails only the write that failed; the others of its batch commit", async () => {
    const settled = await Promise.allSettled([
      insert(10, "first"),
      insert(11, "a"),
      insert(12, null), // NOT NULL: this one fails
      insert(13, "c"),
      insert(1, "taken"), // a duplicate key of the test above: fails too
    ]);
    expect(settled.map((s) => s.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "rejected",
    ]);
    const codes = settled.flatMap((s) =>
      s.status === "rejected" ? [(s.reason as { code?: string }).code] : [],
    );
    expect(codes).toEqual(["23502", "23505"]);
    const { rows } = await pool.query("SELECT id FROM t WHERE id >= 10 ORDER BY id");
    expect(rows.map((row) => row.id)).toEqual([10, 11, 13]);
    // The pool is still usable, and nothing is left waiting.
    expect((await insert(14, "after")).rows.length).toBe(1);
  });
});

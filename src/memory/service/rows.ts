import { sql, type Transaction } from "kysely";
import { KeelError } from "../../core/index.js";
import { type MemoryRecord, recordFromRow } from "../store/record-shape.js";
import type { MemoryDatabase, MemoryDb, MemoryRecordsTable } from "../store/tables.js";

type Insertable = Omit<MemoryRecordsTable, "seq">;

/** Inserts a record; on SQLite its `seq` is the next one (writers are serialised there). */
export async function insertRecord(
  tx: Transaction<MemoryDatabase>,
  dialect: string,
  row: Insertable,
): Promise<void> {
  if (dialect === "sqlite") {
    await tx
      .insertInto("state_memory_records")
      .values({
        ...row,
        seq: sql<number>`(SELECT COALESCE(MAX(seq), 0) + 1 FROM state_memory_records)`,
      })
      .execute();
  } else {
    await tx.insertInto("state_memory_records").values(row).execute();
  }
}

/** Reads records by id, with their derived `supersedes` lists. */
export async function loadRecords(db: MemoryDb, ids: readonly string[]): Promise<MemoryRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom("state_memory_records")
    .selectAll()
    .where("id", "in", ids)
    .execute();
  const back = await db
    .selectFrom("state_memory_records")
    .select(["id", "superseded_by_memory_record_id"])
    .where("superseded_by_memory_record_id", "in", ids)
    .orderBy("seq")
    .execute();
  const supersedes = new Map<string, string[]>();
  for (const link of back) {
    const to = link.superseded_by_memory_record_id as string;
    supersedes.set(to, [...(supersedes.get(to) ?? []), link.id]);
  }
  const byId = new Map(
    rows.map((row) => [row.id, recordFromRow(row, supersedes.get(row.id) ?? [])]),
  );
  return ids.flatMap((id) => {
    const record = byId.get(id);
    return record ? [record] : [];
  });
}

/** One record, or MEMORY_NOT_FOUND. */
export async function loadRecord(db: MemoryDb, id: string): Promise<MemoryRecord> {
  const [record] = await loadRecords(db, [id]);
  if (!record) {
    throw new KeelError("MEMORY_NOT_FOUND", `No memory record ${id}.`, {
      details: { id },
      hint: "List records with `keel memory list`, or search with `keel memory search <words>`.",
    });
  }
  return record;
}

/** Ids of the active decisions on a target in a namespace, oldest first. */
export async function activeDecisionIds(
  db: MemoryDb,
  namespace: string,
  target: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom("state_memory_records")
    .select("id")
    .where("namespace", "=", namespace)
    .where("target", "=", target)
    .where("kind", "=", "decision")
    .where("status", "=", "active")
    .orderBy("seq")
    .execute();
  return rows.map((row) => row.id);
}

/** Targets in a namespace close to `target` (similarity ≥ 0.6), best first, at most 3. */
export async function similarTargets(
  db: MemoryDb,
  namespace: string,
  target: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom("state_memory_records")
    .select("target")
    .distinct()
    .where("namespace", "=", namespace)
    .limit(5000)
    .execute();
  return rows
    .map((row) => ({
      target: row.target,
      score: similarity(row.target.toLowerCase(), target.toLowerCase()),
    }))
    .filter((entry) => entry.target !== target && entry.score >= 0.6)
    .sort((a, b) => b.score - a.score)
    .slice(0, 3)
    .map((entry) => entry.target);
}

/** 2·LCS / (|a| + |b|): how much of two names is shared, in order (difflib's ratio, roughly). */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      row[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : Math.max(above, row[j - 1] as number);
      diagonal = above;
    }
  }
  return (2 * (row[b.length] as number)) / (a.length + b.length);
}

import { type RawBuilder, sql, type Transaction } from "kysely";
import { evaluateEpisodicDecay, evaluateSemanticDecay } from "../lifecycle/decay.js";
import { DAY_MS } from "../lifecycle/time.js";
import type { MemoryDatabase } from "../store/tables.js";
import type { MemoryContext } from "./context.js";

/** What a maintenance pass did. */
export interface MaintenanceReport {
  /** Records whose confidence decayed. */
  decayed: number;
  /** Records forgotten (confidence under 0.1; records others were superseded by are kept). */
  forgotten: string[];
  /** Records whose vitality changed. */
  vitalityChanged: number;
  archivedEvents: number;
  prunedEvents: number;
}

interface Row {
  id: string;
  kind: string;
  status: string;
  confidence: number;
  vitality: string;
  created_at: number;
  last_hit_at: number | null;
  decayed_at: number | null;
}

/**
 * One maintenance pass, applying the lifecycle's pure functions: semantic decay (weeks idle
 * since the last use, or since the last pass that decayed the record, so a week is never
 * counted twice), forgetting under the threshold, vitality by days since the last use, and
 * episodic decay (archive, then prune, events older than 30 days that nothing links to).
 * One transaction, one audit event. The functions decide in memory; each kind of change is
 * then written by one set-based statement (the ids and values passed as one JSON array), so a
 * pass over 100,000 records is a handful of statements, not 100,000 round trips.
 *
 * @example
 * const report = await memory.maintain();
 */
export async function maintain(
  ctx: MemoryContext,
  now = ctx.clock.now(),
): Promise<MaintenanceReport> {
  const sqlite = ctx.store.dialect === "sqlite";
  const decayedAt = sqlite
    ? sql`json_extract(r.stream_json, '$.decayed_at')`
    : sql`(r.stream_json::jsonb ->> 'decayed_at')::bigint`;
  const rows = await sql<Row>`
    SELECT r.id, r.kind, r.status, r.confidence, r.vitality, r.created_at, r.last_hit_at, ${decayedAt} AS decayed_at
    FROM state_memory_records r WHERE r.status IN ('active', 'deprecated', 'draft')`.execute(
    ctx.db,
  );
  const streams = new Map<string, Row>();
  for (const row of rows.rows) streams.set(row.id, row);
  const decays = evaluateSemanticDecay(
    rows.rows.map((row) => {
      const lastUse = Math.max(
        Number(row.last_hit_at ?? row.created_at),
        Number(row.decayed_at ?? 0),
      );
      return {
        id: row.id,
        kind: row.kind,
        status: row.status,
        timestamp: Number(row.created_at),
        last_hit_at: lastUse,
        confidence: Number(row.confidence),
      };
    }),
    now,
  );
  // Records others were superseded by are kept (forgetting one would leave links dangling);
  // only the few that fade are looked up.
  const fading = decays.filter((d) => d.shouldForget).map((d) => d.id);
  const referenced = await successorsAmong(ctx, fading);
  const forgotten = fading.filter((id) => !referenced.has(id));
  const forget = new Set(forgotten);
  const decayed = decays.filter((d) => !forget.has(d.id));
  const vitality = new Map<string, string>();
  for (const row of streams.values()) {
    if (forget.has(row.id)) continue;
    const days = (now - Number(row.last_hit_at ?? row.created_at)) / DAY_MS;
    const next = days < 7 ? "active" : days < 30 ? "decaying" : "dormant";
    if (next !== row.vitality) vitality.set(row.id, next);
  }
  const events = await ctx.db
    .selectFrom("state_memory_events")
    .select(["id", "kind", "status", "memory_record_id", "occurred_at"])
    .where("occurred_at", "<", now - 30 * DAY_MS)
    .execute();
  const episodic = evaluateEpisodicDecay(
    events.map((e) => ({
      id: Number(e.id),
      kind: e.kind,
      status: e.status,
      linked_id: e.memory_record_id,
      timestamp: Number(e.occurred_at),
    })),
    now,
  );
  const report: MaintenanceReport = {
    decayed: decayed.length,
    forgotten,
    vitalityChanged: vitality.size,
    archivedEvents: episodic.toArchive.length,
    prunedEvents: episodic.toPrune.length,
  };
  if (
    decayed.length +
      forgotten.length +
      vitality.size +
      episodic.toArchive.length +
      episodic.toPrune.length ===
    0
  )
    return report;
  await ctx.write(async (tx, audit) => {
    const set = sqlite ? sqliteSet : postgresSet;
    await set.decay(
      tx,
      decayed.map((d) => ({ id: d.id, c: d.newConfidence, v: vitality.get(d.id) ?? null })),
      now,
    );
    for (const d of decayed) vitality.delete(d.id);
    const byVitality = new Map<string, string[]>();
    for (const [id, value] of vitality)
      byVitality.set(value, [...(byVitality.get(value) ?? []), id]);
    for (const [value, ids] of byVitality) {
      await sql`UPDATE state_memory_records SET vitality = ${value} WHERE id IN (${set.ids(ids)})`.execute(
        tx,
      );
    }
    if (forgotten.length > 0) {
      await sql`DELETE FROM state_memory_records WHERE id IN (${set.ids(forgotten)})`.execute(tx);
    }
    if (episodic.toArchive.length > 0) {
      await sql`UPDATE state_memory_events SET status = 'archived' WHERE id IN (${set.numbers(episodic.toArchive)})`.execute(
        tx,
      );
    }
    if (episodic.toPrune.length > 0) {
      await sql`DELETE FROM state_memory_events WHERE id IN (${set.numbers(episodic.toPrune)})`.execute(
        tx,
      );
    }
    await audit({
      type: "memory.maintained",
      summary: `Maintenance: ${report.decayed} decayed, ${forgotten.length} forgotten${forgotten.length > 0 ? ` (${forgotten.slice(0, 20).join(", ")}${forgotten.length > 20 ? ", …" : ""})` : ""}, ${report.vitalityChanged} vitality changes, ${report.archivedEvents} events archived, ${report.prunedEvents} pruned`,
      payload: forgotten.length > 20 ? { forgotten } : undefined,
    });
  });
  return report;
}

/** Which of `ids` some record was superseded by (one statement per 500 ids). */
async function successorsAmong(ctx: MemoryContext, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let start = 0; start < ids.length; start += 500) {
    const rows = await ctx.db
      .selectFrom("state_memory_records")
      .select("superseded_by_memory_record_id as id")
      .distinct()
      .where("superseded_by_memory_record_id", "in", ids.slice(start, start + 500))
      .execute();
    for (const row of rows) if (row.id) found.add(row.id);
  }
  return found;
}

interface Decayed {
  id: string;
  /** The new confidence. */
  c: number;
  /** The new vitality, when it changes too. */
  v: string | null;
}

/** The set-based writes of a pass, per dialect: a list is one JSON parameter. */
interface SetWrites {
  /** A subquery over the ids of a JSON array (for `id IN (…)`). */
  ids(ids: readonly string[]): RawBuilder<unknown>;
  numbers(ids: readonly number[]): RawBuilder<unknown>;
  decay(tx: Transaction<MemoryDatabase>, rows: readonly Decayed[], now: number): Promise<void>;
}

const sqliteSet: SetWrites = {
  ids: (ids) => sql`SELECT value FROM json_each(${JSON.stringify(ids)})`,
  numbers: (ids) => sql`SELECT value FROM json_each(${JSON.stringify(ids)})`,
  async decay(tx, rows, now) {
    if (rows.length === 0) return;
    // Rows as [id, confidence, vitality] arrays: a third of the JSON of objects to parse.
    const values = JSON.stringify(rows.map((row) => [row.id, row.c, row.v]));
    await sql`
      UPDATE state_memory_records AS r
      SET confidence = j.c, vitality = COALESCE(j.v, r.vitality), updated_at = ${now},
        stream_json = json_set(r.stream_json, '$.decayed_at', ${now})
      FROM (SELECT value ->> 0 AS id, value ->> 1 AS c, value ->> 2 AS v
        FROM json_each(${values})) AS j
      WHERE r.id = j.id`.execute(tx);
  },
};

const postgresSet: SetWrites = {
  ids: (ids) => sql`SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)`,
  numbers: (ids) => sql`SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::bigint`,
  async decay(tx, rows, now) {
    if (rows.length === 0) return;
    await sql`
      UPDATE state_memory_records AS r
      SET confidence = j.c, vitality = COALESCE(j.v, r.vitality), updated_at = ${now},
        stream_json = (r.stream_json::jsonb || jsonb_build_object('decayed_at', ${now}::bigint))::text
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS j(id text, c double precision, v text)
      WHERE r.id = j.id`.execute(tx);
  },
};

import { sql } from "kysely";
import { evaluateEpisodicDecay, evaluateSemanticDecay } from "../lifecycle/decay.js";
import { DAY_MS } from "../lifecycle/time.js";
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
  stream_json: string;
  referenced: number;
}

/**
 * One maintenance pass, applying the lifecycle's pure functions: semantic decay (weeks idle
 * since the last use, or since the last pass that decayed the record, so a week is never
 * counted twice), forgetting under the threshold, vitality by days since the last use, and
 * episodic decay (archive, then prune, events older than 30 days that nothing links to).
 * One transaction, one audit event.
 *
 * @example
 * const report = await memory.maintain();
 */
export async function maintain(
  ctx: MemoryContext,
  now = ctx.clock.now(),
): Promise<MaintenanceReport> {
  const rows = await sql<Row>`
    SELECT r.id, r.kind, r.status, r.confidence, r.vitality, r.created_at, r.last_hit_at, r.stream_json,
      CASE WHEN EXISTS (SELECT 1 FROM state_memory_records s WHERE s.superseded_by_memory_record_id = r.id) THEN 1 ELSE 0 END AS referenced
    FROM state_memory_records r WHERE r.status IN ('active', 'deprecated', 'draft')`.execute(
    ctx.db,
  );
  const streams = new Map<string, Row & { decayedAt: number | null }>();
  for (const row of rows.rows) {
    const stream = JSON.parse(row.stream_json) as { decayed_at?: number };
    streams.set(row.id, { ...row, decayedAt: stream.decayed_at ?? null });
  }
  const decays = evaluateSemanticDecay(
    [...streams.values()].map((row) => {
      const lastUse = Math.max(Number(row.last_hit_at ?? row.created_at), row.decayedAt ?? 0);
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
  const forgotten = decays
    .filter((d) => d.shouldForget && !streams.get(d.id)?.referenced)
    .map((d) => d.id);
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
    for (const d of decayed) {
      const row = streams.get(d.id) as Row;
      const stream = { ...(JSON.parse(row.stream_json) as object), decayed_at: now };
      await tx
        .updateTable("state_memory_records")
        .set({
          confidence: d.newConfidence,
          stream_json: JSON.stringify(stream),
          updated_at: now,
          ...(vitality.has(d.id) ? { vitality: vitality.get(d.id) as string } : {}),
        })
        .where("id", "=", d.id)
        .execute();
      vitality.delete(d.id);
    }
    const byVitality = new Map<string, string[]>();
    for (const [id, value] of vitality)
      byVitality.set(value, [...(byVitality.get(value) ?? []), id]);
    for (const [value, ids] of byVitality) {
      for (let i = 0; i < ids.length; i += 500) {
        await tx
          .updateTable("state_memory_records")
          .set({ vitality: value })
          .where("id", "in", ids.slice(i, i + 500))
          .execute();
      }
    }
    for (let i = 0; i < forgotten.length; i += 500) {
      await tx
        .deleteFrom("state_memory_records")
        .where("id", "in", forgotten.slice(i, i + 500))
        .execute();
    }
    for (let i = 0; i < episodic.toArchive.length; i += 500) {
      await tx
        .updateTable("state_memory_events")
        .set({ status: "archived" })
        .where("id", "in", episodic.toArchive.slice(i, i + 500))
        .execute();
    }
    for (let i = 0; i < episodic.toPrune.length; i += 500) {
      await tx
        .deleteFrom("state_memory_events")
        .where("id", "in", episodic.toPrune.slice(i, i + 500))
        .execute();
    }
    await audit({
      type: "memory.maintained",
      summary: `Maintenance: ${report.decayed} decayed, ${forgotten.length} forgotten${forgotten.length > 0 ? ` (${forgotten.slice(0, 20).join(", ")}${forgotten.length > 20 ? ", …" : ""})` : ""}, ${report.vitalityChanged} vitality changes, ${report.archivedEvents} events archived, ${report.prunedEvents} pruned`,
      payload: forgotten.length > 20 ? { forgotten } : undefined,
    });
  });
  return report;
}

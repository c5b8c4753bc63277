import { z } from "zod";
import { canonicalJson, KeelError, sha256Hex } from "../../core/index.js";
import { checkIntegrity, type IntegrityRecord } from "../invariants/integrity.js";
import type { MemoryRecord } from "../store/record-shape.js";
import { fromDbEnum, toDbEnum } from "../store/tables.js";
import type { MemoryContext } from "./context.js";
import { insertRecord, loadRecords } from "./rows.js";

/** An episodic event in a bundle. */
export interface BundleEvent {
  id: number;
  namespace: string;
  source: string;
  kind: string;
  status: string;
  content: string;
  context: unknown;
  memory_record_id: string | null;
  occurred_at: string;
}

/** A portable copy of a memory: every record (oldest first) and every event. */
export interface MemoryBundle {
  format: "keel-memory-bundle";
  version: 1;
  exported_at: string;
  records: MemoryRecord[];
  events: BundleEvent[];
}

/** Exports every record and event (optionally of one namespace). */
export async function exportBundle(ctx: MemoryContext, namespace?: string): Promise<MemoryBundle> {
  let ids = ctx.db.selectFrom("state_memory_records").select("id").orderBy("seq");
  if (namespace) ids = ids.where("namespace", "=", namespace);
  const records = await loadRecords(
    ctx.db,
    (await ids.execute()).map((row) => row.id),
  );
  let events = ctx.db.selectFrom("state_memory_events").selectAll().orderBy("id");
  if (namespace) events = events.where("namespace", "=", namespace);
  return {
    format: "keel-memory-bundle",
    version: 1,
    exported_at: new Date(ctx.clock.now()).toISOString(),
    records,
    events: (await events.execute()).map((row) => ({
      id: Number(row.id),
      namespace: row.namespace,
      source: fromDbEnum(row.source),
      kind: fromDbEnum(row.kind),
      status: row.status,
      content: row.content,
      context: JSON.parse(row.context_json) as unknown,
      memory_record_id: row.memory_record_id,
      occurred_at: new Date(Number(row.occurred_at)).toISOString(),
    })),
  };
}

const BundleShape = z.object({
  format: z.literal("keel-memory-bundle"),
  version: z.literal(1),
  records: z.array(
    z.looseObject({
      id: z.string().min(1),
      kind: z.string(),
      status: z.string(),
      target: z.string(),
      namespace: z.string(),
    }),
  ),
  events: z.array(z.looseObject({ kind: z.string(), source: z.string(), content: z.string() })),
});

/**
 * Imports a bundle in one transaction: records not already present (by id) are added oldest
 * first with their supersede links, events not already present (by content) are added and
 * re-linked. A bundle that breaks an invariant (two active decisions on a target, a dangling
 * or one-way link, a cycle) is refused whole.
 */
export async function importBundle(
  ctx: MemoryContext,
  input: unknown,
): Promise<{ records: number; events: number }> {
  const shape = BundleShape.safeParse(input);
  if (!shape.success) {
    throw new KeelError(
      "MEMORY_INVALID",
      `Not a Keel memory bundle: ${shape.error.issues.map((i) => `/${i.path.join("/")} ${i.message}`).join("; ")}`,
      {
        hint: "Import a file written by `keel memory export`.",
      },
    );
  }
  const bundle = input as MemoryBundle;
  const byId: Record<string, IntegrityRecord> = {};
  for (const record of bundle.records) {
    byId[record.id] = {
      kind: record.kind,
      context: {
        target: record.target,
        namespace: record.namespace,
        status: record.status,
        superseded_by: record.superseded_by,
        supersedes: record.supersedes,
      },
    };
  }
  const integrity = checkIntegrity(byId);
  if (!integrity.valid) {
    throw new KeelError(
      "MEMORY_INVARIANT",
      `The bundle breaks an invariant: ${integrity.message}`,
      { details: { invariant: integrity.invariant } },
    );
  }
  return ctx.write(async (tx, audit) => {
    const existing = new Set(
      (
        await tx
          .selectFrom("state_memory_records")
          .select("id")
          .where("id", "in", bundle.records.length > 0 ? bundle.records.map((r) => r.id) : [""])
          .execute()
      ).map((r) => r.id),
    );
    const added = bundle.records.filter((record) => !existing.has(record.id));
    for (const record of added) {
      await insertRecord(tx, ctx.store.dialect, {
        id: record.id,
        namespace: record.namespace,
        kind: record.kind,
        source: toDbEnum(record.source),
        status: record.status === "superseded" ? "deprecated" : record.status,
        target: record.target,
        title: record.title,
        rationale: record.rationale,
        content: record.content,
        keywords: record.keywords.join(" "),
        context_json: JSON.stringify(record.context),
        superseded_by_memory_record_id: null,
        phase: record.phase,
        vitality: record.vitality,
        scope: record.scope,
        provenance: record.provenance,
        confidence: record.confidence,
        hit_count: record.hit_count,
        stream_json: JSON.stringify(record.stream),
        last_hit_at: record.last_hit_at ? Date.parse(record.last_hit_at) : null,
        created_at: Date.parse(record.created_at),
        updated_at: Date.parse(record.updated_at),
      });
    }
    for (const record of added) {
      if (record.status !== "superseded" || !record.superseded_by) continue;
      await tx
        .updateTable("state_memory_records")
        .set({ status: "superseded", superseded_by_memory_record_id: record.superseded_by })
        .where("id", "=", record.id)
        .execute();
    }
    let events = 0;
    for (const event of bundle.events) {
      const hash = sha256Hex(
        canonicalJson({
          namespace: event.namespace,
          source: event.source,
          kind: event.kind,
          content: event.content,
          context: event.context,
        }),
      );
      const result = await tx
        .insertInto("state_memory_events")
        .values({
          namespace: event.namespace,
          source: toDbEnum(event.source),
          kind: toDbEnum(event.kind),
          status: event.status,
          content: event.content,
          context_json: JSON.stringify(event.context),
          content_hash: hash,
          memory_record_id:
            event.memory_record_id &&
            (existing.has(event.memory_record_id) ||
              added.some((r) => r.id === event.memory_record_id))
              ? event.memory_record_id
              : null,
          occurred_at: Date.parse(event.occurred_at),
          created_at: ctx.clock.now(),
        })
        .onConflict((oc) => oc.column("content_hash").doNothing())
        .executeTakeFirst();
      events += Number(result.numInsertedOrUpdatedRows ?? 0);
    }
    await audit({
      type: "memory.bundle_imported",
      summary: `Imported a memory bundle: ${added.length} records, ${events} events`,
    });
    return { records: added.length, events };
  });
}

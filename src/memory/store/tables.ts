import type { Generated, Kysely, Transaction } from "kysely";
import type { RuntimeDatabase, RuntimeTables } from "../../runtime/index.js";
import type { Store } from "../../store/index.js";

/** Row types of the memory's tables (`024_memory.sql`). */
export type MemoryTables = {
  state_memory_records: MemoryRecordsTable;
  state_memory_revisions: MemoryRevisionsTable;
  state_memory_events: MemoryEventsTable;
  state_memory_vectors: MemoryVectorsTable;
};

/** The kernel database with the runtime's (audit) and the memory's tables. */
export type MemoryDatabase = RuntimeDatabase & MemoryTables;
export type MemoryDb = Kysely<MemoryDatabase> | Transaction<MemoryDatabase>;

export interface MemoryRecordsTable {
  id: string;
  /** SQLite: assigned by the insert; Postgres: an identity column. */
  seq: Generated<number>;
  namespace: string;
  kind: string;
  source: string;
  status: string;
  target: string;
  title: string;
  rationale: string;
  content: string;
  keywords: string;
  context_json: string;
  superseded_by_memory_record_id: string | null;
  phase: string;
  vitality: string;
  scope: string;
  provenance: string;
  confidence: number;
  hit_count: number;
  stream_json: string;
  last_hit_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface MemoryRevisionsTable {
  id: Generated<number>;
  memory_record_id: string;
  change: string;
  status: string;
  superseded_by_memory_record_id: string | null;
  context_json: string;
  confidence: number;
  recorded_at: number;
}

export interface MemoryEventsTable {
  id: Generated<number>;
  namespace: string;
  source: string;
  kind: string;
  status: string;
  content: string;
  context_json: string;
  content_hash: string;
  memory_record_id: string | null;
  occurred_at: number;
  created_at: number;
}

export interface MemoryVectorsTable {
  memory_record_id: string;
  model: string;
  dimension_count: number;
  vector_json: string;
  created_at: number;
}

/** A query builder over the memory's tables. */
export function memoryDb(store: Store): Kysely<MemoryDatabase> {
  return store.kysely.withTables<RuntimeTables & MemoryTables>();
}

/** Seed enum values are snake_case; the database keeps them kebab-case (seed 004). */
export const toDbEnum = (value: string): string => value.replaceAll("_", "-");
export const fromDbEnum = (value: string): string => value.replaceAll("-", "_");

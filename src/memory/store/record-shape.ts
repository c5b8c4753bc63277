import type { MemoryRecordsTable } from "./tables.js";
import { fromDbEnum } from "./tables.js";

/**
 * A semantic record as the API, the CLI and the MCP server return it (seed 001 field names).
 * `context` is the record's content model (a `DecisionContent` or `ProposalContent`);
 * `supersedes` is derived from the successors' links, so the two directions always agree.
 */
export interface MemoryRecord {
  id: string;
  kind: string;
  source: string;
  namespace: string;
  target: string;
  title: string;
  rationale: string;
  content: string;
  status: string;
  keywords: string[];
  context: Record<string, unknown>;
  superseded_by: string | null;
  supersedes: string[];
  phase: string;
  vitality: string;
  scope: string;
  provenance: string;
  confidence: number;
  hit_count: number;
  stream: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  last_hit_at: string | null;
}

/** A row as a record; `supersedes` comes from the caller (a query over the links). */
export function recordFromRow(
  row: Omit<MemoryRecordsTable, "seq"> & { seq?: unknown },
  supersedes: string[] = [],
): MemoryRecord {
  return {
    id: row.id,
    kind: row.kind,
    source: fromDbEnum(row.source),
    namespace: row.namespace,
    target: row.target,
    title: row.title,
    rationale: row.rationale,
    content: row.content,
    status: row.status,
    keywords: row.keywords === "" ? [] : row.keywords.split(" "),
    context: JSON.parse(row.context_json) as Record<string, unknown>,
    superseded_by: row.superseded_by_memory_record_id,
    supersedes,
    phase: row.phase,
    vitality: row.vitality,
    scope: row.scope,
    provenance: row.provenance,
    confidence: Number(row.confidence),
    hit_count: Number(row.hit_count),
    stream: JSON.parse(row.stream_json) as Record<string, unknown>,
    created_at: new Date(Number(row.created_at)).toISOString(),
    updated_at: new Date(Number(row.updated_at)).toISOString(),
    last_hit_at: row.last_hit_at === null ? null : new Date(Number(row.last_hit_at)).toISOString(),
  };
}

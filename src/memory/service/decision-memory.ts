import { newId } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import type { EventSource } from "../models/enums.js";
import type { MemoryEventInput } from "../models/event.js";
import type { SearchDecisionsRequest } from "../models/requests.js";
import type { MemoryRecord } from "../store/record-shape.js";
import { fromDbEnum } from "../store/tables.js";
import { type BundleEvent, exportBundle, importBundle, type MemoryBundle } from "./bundle.js";
import { type DecisionMemoryOptions, MemoryContext } from "./context.js";
import { syncGit } from "./git-sync.js";
import { type ContextOptions, type InjectedMemory, relevantContext } from "./inject.js";
import { type MaintenanceReport, maintain } from "./maintain.js";
import { exportMarkdown } from "./markdown.js";
import { activeDecisionIds, loadRecord, loadRecords } from "./rows.js";
import { type SearchHit, search } from "./search.js";
import {
  acceptProposal,
  deprecate,
  forget,
  linkEvent,
  type ProposeInput,
  propose,
  type RecordedEvent,
  type RecordInput,
  recordDecision,
  recordEvent,
  rejectProposal,
  type SupersedeInput,
  supersede,
} from "./writes.js";

/** Filters of `list`. */
export interface ListOptions {
  namespace?: string;
  kind?: string;
  status?: string;
  target?: string;
  limit?: number;
}

/** Counts of what the memory holds. */
export interface MemoryStats {
  records: number;
  events: number;
  byKind: Record<string, number>;
  byStatus: Record<string, number>;
  namespaces: string[];
}

/**
 * The decision memory of seed 001 on the kernel database: records (semantic), events
 * (episodic), proposals, supersede chains, search, context injection, git sync, bundles and
 * the lifecycle. Every change is one transaction with its Keel audit event.
 *
 * @example
 * const memory = new DecisionMemory(await openStore());
 * const d = await memory.record({ title: "Use PostgreSQL", target: "database",
 *   rationale: "ACID transactions and JSONB" });
 * const hits = await memory.search({ query: "postgres" });
 */
export class DecisionMemory {
  readonly #ctx: MemoryContext;
  readonly #newId: () => string;

  constructor(store: Store, options: DecisionMemoryOptions & { newId?: () => string } = {}) {
    this.#ctx = new MemoryContext(store, options);
    this.#newId = options.newId ?? newId;
  }

  /** Records a decision (or constraint, assumption, intervention); MEMORY_CONFLICT if the target is taken. */
  record(input: RecordInput): Promise<MemoryRecord> {
    return recordDecision(this.#ctx, input, this.#newId);
  }

  /** Replaces active decisions with a new one. */
  supersede(input: SupersedeInput): Promise<MemoryRecord> {
    return supersede(this.#ctx, input, this.#newId);
  }

  /** Stores a draft proposal. */
  propose(input: ProposeInput): Promise<MemoryRecord> {
    return propose(this.#ctx, input, this.#newId);
  }

  /** Accepts a draft proposal as an active decision (returned). */
  accept(proposalId: string, source?: EventSource): Promise<MemoryRecord> {
    return acceptProposal(this.#ctx, proposalId, this.#newId, source);
  }

  /** Rejects a draft proposal. */
  reject(
    proposalId: string,
    reason: string | null = null,
    source?: EventSource,
  ): Promise<MemoryRecord> {
    return rejectProposal(this.#ctx, proposalId, reason, source);
  }

  /** Forgets a record for good. */
  forget(id: string, source?: EventSource): Promise<void> {
    return forget(this.#ctx, id, source);
  }

  /** Retires an active record without a successor (status `deprecated`; history kept). */
  deprecate(id: string, source?: EventSource): Promise<void> {
    return deprecate(this.#ctx, id, source);
  }

  /** The active decision on a target of a namespace (default: the memory's), or null. */
  async active(target: string, namespace?: string): Promise<MemoryRecord | null> {
    const ids = await activeDecisionIds(this.#ctx.db, namespace ?? this.#ctx.namespace, target);
    const [record] = await loadRecords(this.#ctx.db, ids.slice(0, 1));
    return record ?? null;
  }

  /** Links an episodic event to a record as evidence. */
  link(eventId: number, recordId: string): Promise<void> {
    return linkEvent(this.#ctx, eventId, recordId);
  }

  /** Takes in any MemoryEvent (routed by kind). */
  recordEvent(event: MemoryEventInput & { namespace?: string }): Promise<RecordedEvent> {
    return recordEvent(this.#ctx, event, this.#newId);
  }

  /** Searches records (full text, fused with vectors when an embedder is set). */
  search(request: Partial<SearchDecisionsRequest> & { query: string }): Promise<SearchHit[]> {
    return search(this.#ctx, request);
  }

  /** The context block to inject before a prompt ("" when nothing relevant). */
  context(
    prompt: string,
    options?: ContextOptions,
  ): Promise<{ text: string; memories: InjectedMemory[] }> {
    return relevantContext(this.#ctx, prompt, options, this.#newId);
  }

  /** Imports a git repository's recent commits as `commit_change` events. */
  syncGit(options: {
    repoPath: string;
    limit?: number;
    namespace?: string;
  }): Promise<{ indexedCommits: number }> {
    return syncGit(this.#ctx, { limit: 20, ...options }, this.#newId);
  }

  /** One record with its links; MEMORY_NOT_FOUND when absent. */
  get(id: string): Promise<MemoryRecord> {
    return loadRecord(this.#ctx.db, id);
  }

  /** Records of a namespace (default: the memory's), newest first. */
  async list(options: ListOptions = {}): Promise<MemoryRecord[]> {
    let query = this.#ctx.db
      .selectFrom("state_memory_records")
      .select("id")
      .orderBy("seq", "desc")
      .limit(options.limit ?? 100);
    query = query.where("namespace", "=", options.namespace ?? this.#ctx.namespace);
    if (options.kind) query = query.where("kind", "=", options.kind);
    if (options.status) query = query.where("status", "=", options.status);
    if (options.target) query = query.where("target", "=", options.target);
    return loadRecords(
      this.#ctx.db,
      (await query.execute()).map((row) => row.id),
    );
  }

  /** Every version of a record, oldest first (written by the database). */
  async history(id: string): Promise<
    {
      change: string;
      status: string;
      superseded_by: string | null;
      context: unknown;
      confidence: number;
      recorded_at: string;
    }[]
  > {
    await loadRecord(this.#ctx.db, id);
    const rows = await this.#ctx.db
      .selectFrom("state_memory_revisions")
      .selectAll()
      .where("memory_record_id", "=", id)
      .orderBy("id")
      .execute();
    return rows.map((row) => ({
      change: row.change,
      status: row.status,
      superseded_by: row.superseded_by_memory_record_id,
      context: JSON.parse(row.context_json) as unknown,
      confidence: Number(row.confidence),
      recorded_at: new Date(Number(row.recorded_at)).toISOString(),
    }));
  }

  /** Episodic events of a namespace (default: the memory's), newest first. */
  async events(
    options: { namespace?: string; kind?: string; limit?: number } = {},
  ): Promise<BundleEvent[]> {
    let query = this.#ctx.db
      .selectFrom("state_memory_events")
      .selectAll()
      .orderBy("id", "desc")
      .limit(options.limit ?? 100);
    query = query.where("namespace", "=", options.namespace ?? this.#ctx.namespace);
    if (options.kind) query = query.where("kind", "=", options.kind.replaceAll("_", "-"));
    return (await query.execute()).map((row) => ({
      id: Number(row.id),
      namespace: row.namespace,
      source: fromDbEnum(row.source),
      kind: fromDbEnum(row.kind),
      status: row.status,
      content: row.content,
      context: JSON.parse(row.context_json) as unknown,
      memory_record_id: row.memory_record_id,
      occurred_at: new Date(Number(row.occurred_at)).toISOString(),
    }));
  }

  /** Counts by kind and status. */
  async stats(): Promise<MemoryStats> {
    const db = this.#ctx.db;
    const groups = await db
      .selectFrom("state_memory_records")
      .select(["kind", "status", "namespace", (eb) => eb.fn.countAll<number>().as("n")])
      .groupBy(["kind", "status", "namespace"])
      .execute();
    const events = await db
      .selectFrom("state_memory_events")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    const stats: MemoryStats = {
      records: 0,
      events: Number(events.n),
      byKind: {},
      byStatus: {},
      namespaces: [],
    };
    const namespaces = new Set<string>();
    for (const group of groups) {
      const n = Number(group.n);
      stats.records += n;
      stats.byKind[group.kind] = (stats.byKind[group.kind] ?? 0) + n;
      stats.byStatus[group.status] = (stats.byStatus[group.status] ?? 0) + n;
      namespaces.add(group.namespace);
    }
    stats.namespaces = [...namespaces].sort();
    return stats;
  }

  /** Exports a bundle (every record and event, or one namespace's). */
  exportBundle(namespace?: string): Promise<MemoryBundle> {
    return exportBundle(this.#ctx, namespace);
  }

  /** Imports a bundle written by `exportBundle`. */
  importBundle(bundle: unknown): Promise<{ records: number; events: number }> {
    return importBundle(this.#ctx, bundle);
  }

  /** Writes one markdown file per record under `dir`. */
  exportMarkdown(dir: string): Promise<string[]> {
    return exportMarkdown(this.#ctx, dir);
  }

  /** One maintenance pass (decay, forgetting, vitality, episodic retention). */
  maintain(now?: number): Promise<MaintenanceReport> {
    return maintain(this.#ctx, now);
  }
}

import type { Transaction } from "kysely";
import { type Clock, isKeelError, KeelError, newId, systemClock } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import { putArtifact } from "../artifacts/artifact-store.js";
import type { AuditEvent, AuditEventInput, AuditRefs } from "../contracts/audit-event.js";
import { validateContract } from "../contracts/catalog.js";
import type { AuditOutcome, AutonomyLevel, PipelineStage, RiskLevel } from "../contracts/enums.js";
import { autonomyToDb, stageToDb } from "../db/codec.js";
import { type RuntimeDatabase, runtimeDb } from "../db/tables.js";
import { AUDIT_HEAD_ID, chainHash, GENESIS_HASH } from "./audit-chain.js";

/** What a caller says about a stage; the writer adds the id, the timestamp and the chain. */
export interface AuditEntry {
  stage: PipelineStage;
  /** Dotted: `<subject>.<what happened>`, e.g. `tool_call.succeeded`, `gate.approved`. */
  type: string;
  /** One readable sentence; indexed for search. */
  summary: string;
  outcome: AuditOutcome;
  refs?: Partial<AuditRefs>;
  latencyMs?: number | null;
  toolName?: string | null;
  connectorId?: string | null;
  riskLevel?: RiskLevel | null;
  autonomyLevel?: AutonomyLevel | null;
  /** A payload to keep with the event; stored as an artifact and referenced by `payload_ref`. */
  payload?: unknown;
}

/** Options of an AuditWriter. */
export interface AuditWriterOptions {
  /** Sets every event's timestamp; the caller never does. */
  clock?: Clock;
  newId?: () => string;
}

/**
 * Appends events to the audit log. The writer sets each event's timestamp itself, requires the
 * trace id (its first argument), validates the event against the seed-003 contract and links it
 * into the hash chain. Pass the caller's transaction so that the event commits or rolls back with
 * the change it records: a failed audit write fails the operation (`AUDIT_WRITE_FAILED`).
 *
 * @example
 * const audit = new AuditWriter(store);
 * await audit.write(traceId, {
 *   stage: "gate", type: "gate.approved", summary: "ana approved deploy", outcome: "success",
 *   refs: { approval_id: id },
 * });
 */
export class AuditWriter {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #newId: () => string;

  constructor(store: Store, options: AuditWriterOptions = {}) {
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
    this.#newId = options.newId ?? newId;
  }

  /** Appends one event; inside `tx` when given, else in a transaction of its own. */
  async write(
    traceId: string,
    entry: AuditEntry,
    tx?: Transaction<RuntimeDatabase>,
  ): Promise<AuditEvent> {
    const recordedAt = this.#clock.now();
    const event = this.#validated(traceId, entry, recordedAt);
    try {
      if (tx) return await this.#append(tx, event, entry, recordedAt);
      return await runtimeDb(this.#store)
        .transaction()
        .execute((own) => this.#append(own, event, entry, recordedAt));
    } catch (error) {
      if (isKeelError(error)) throw error;
      throw new KeelError(
        "AUDIT_WRITE_FAILED",
        `The audit event "${entry.type}" for trace ${traceId} could not be written, so the operation it records was not done.`,
        {
          cause: error,
          details: {
            traceId,
            type: entry.type,
            reason: String((error as Error)?.message ?? error),
          },
          hint: "Check that the database is reachable and writable, then retry the operation.",
        },
      );
    }
  }

  #validated(traceId: string, entry: AuditEntry, recordedAt: number): AuditEvent {
    const candidate: AuditEventInput = {
      audit_id: this.#newId(),
      timestamp: new Date(recordedAt).toISOString(),
      trace_id: traceId,
      stage: entry.stage,
      refs: entry.refs ?? {},
      type: entry.type,
      summary: entry.summary,
      outcome: entry.outcome,
      latency_ms: entry.latencyMs ?? null,
      tool_name: entry.toolName ?? null,
      connector_id: entry.connectorId ?? null,
      risk_level: entry.riskLevel ?? null,
      autonomy_level: entry.autonomyLevel ?? null,
      // Filled below once the payload is stored; validated here as a placeholder id.
      payload_ref: null,
    };
    const result = validateContract("AuditEvent", candidate);
    if (!result.ok) {
      throw new KeelError("AUDIT_INVALID", `The audit event "${String(entry.type)}" is invalid.`, {
        details: { problems: result.problems },
        hint: result.problems.map((p) => `${p.path}: ${p.message}`).join("; "),
      });
    }
    return result.value;
  }

  async #append(
    tx: Transaction<RuntimeDatabase>,
    validated: AuditEvent,
    entry: AuditEntry,
    recordedAt: number,
  ): Promise<AuditEvent> {
    let event = validated;
    if (entry.payload !== undefined) {
      const artifact = await putArtifact(tx, {
        id: this.#newId(),
        kind: "audit-payload",
        body: entry.payload,
        now: recordedAt,
      });
      event = { ...event, payload_ref: artifact.id };
    }
    const head = await this.#lockHead(tx, recordedAt);
    const seq = Number(head.last_seq) + 1;
    const eventHash = chainHash(head.last_hash, event);
    await tx
      .insertInto("state_audit_events")
      .values({
        id: event.audit_id,
        seq,
        trace_id: event.trace_id,
        stage: stageToDb(event.stage),
        type: event.type,
        summary: event.summary,
        outcome: event.outcome,
        event_id: event.refs.event_id,
        task_id: event.refs.task_id,
        step_id: event.refs.step_id,
        tool_call_id: event.refs.tool_call_id,
        approval_id: event.refs.approval_id,
        latency_ms: event.latency_ms,
        tool_name: event.tool_name,
        connector_id: event.connector_id,
        risk_level: event.risk_level,
        autonomy_level: event.autonomy_level === null ? null : autonomyToDb(event.autonomy_level),
        payload_ref: event.payload_ref,
        recorded_at: recordedAt,
        prev_hash: head.last_hash,
        event_hash: eventHash,
      })
      .execute();
    await tx
      .updateTable("state_audit_heads")
      .set({ last_seq: seq, last_hash: eventHash, updated_at: recordedAt })
      .where("id", "=", AUDIT_HEAD_ID)
      .execute();
    return event;
  }

  /**
   * Reads and locks the chain head. On Postgres the row lock serialises appenders across
   * connections and machines; SQLite's write transaction (BEGIN IMMEDIATE) already admits one
   * writer at a time. A missing head (a new database, or after `keel db reset`, which empties
   * `state_` tables but keeps the append-only log) is rebuilt from the newest event.
   */
  async #lockHead(
    tx: Transaction<RuntimeDatabase>,
    now: number,
  ): Promise<{ last_seq: number; last_hash: string }> {
    const select = () => {
      const query = tx
        .selectFrom("state_audit_heads")
        .select(["last_seq", "last_hash"])
        .where("id", "=", AUDIT_HEAD_ID);
      return (
        this.#store.supportsMultipleConnections ? query.forUpdate() : query
      ).executeTakeFirst();
    };
    const head = await select();
    if (head) return head;
    const newest = await tx
      .selectFrom("state_audit_events")
      .select(["seq", "event_hash"])
      .orderBy("seq", "desc")
      .limit(1)
      .executeTakeFirst();
    await tx
      .insertInto("state_audit_heads")
      .values({
        id: AUDIT_HEAD_ID,
        last_seq: newest ? Number(newest.seq) : 0,
        last_hash: newest?.event_hash ?? GENESIS_HASH,
        updated_at: now,
      })
      .onConflict((oc) => oc.column("id").doNothing())
      .execute();
    const created = await select();
    if (!created) throw new KeelError("INTERNAL", "The audit chain head could not be created.");
    return created;
  }
}

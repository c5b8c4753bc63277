import type { Transaction } from "kysely";
import { type Clock, isKeelError, KeelError, newId, systemClock } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import { insertArtifactSqlite } from "../artifacts/artifact-sqlite.js";
import { artifactRow } from "../artifacts/artifact-store.js";
import type { AuditEvent, AuditEventInput, AuditRefs } from "../contracts/audit-event.js";
import { validateContract } from "../contracts/catalog.js";
import type { AuditOutcome, AutonomyLevel, PipelineStage, RiskLevel } from "../contracts/enums.js";
import { isoFromMs } from "../db/codec.js";
import { sqliteWrite } from "../db/sqlite-native.js";
import {
  type ArtifactsTable,
  type AuditEventsTable,
  type RuntimeDatabase,
  runtimeDb,
} from "../db/tables.js";
import { AUDIT_HEAD_ID, chainHashOf, GENESIS_HASH } from "./audit-chain.js";
import { checkAuditEvent } from "./audit-event-check.js";
import { keyedAuditId } from "./audit-key.js";
import { appendAuditPostgres } from "./audit-postgres.js";
import {
  AUDIT_RECORD_COLUMNS,
  type AuditRecord,
  auditRecord,
  auditRowValues,
} from "./audit-record.js";
import { appendAuditSqlite, auditIdTakenSqlite } from "./audit-sqlite.js";

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
  /**
   * An idempotency key: the event's id is derived from it (`keyedAuditId`), and an event already
   * appended under the same key is not appended again. Work that may be redone after a crash
   * (a graph step re-run from its checkpoint) audits what it did exactly once this way.
   */
  key?: string;
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

  /** The store the log is written to (for callers that append several events in one transaction). */
  get store(): Store {
    return this.#store;
  }

  /**
   * Appends one event; inside `tx` when given, else in a transaction of its own. An entry with
   * a `key` already in the log is not appended again (the event as this call built it is returned).
   */
  async write(
    traceId: string,
    entry: AuditEntry,
    tx?: Transaction<RuntimeDatabase>,
  ): Promise<AuditEvent> {
    const { record, payload } = this.prepare(traceId, entry);
    const keyed = entry.key !== undefined;
    try {
      if (tx) await this.#appendIn(tx, record, payload, keyed);
      else await this.#appendAlone(record, payload, keyed);
      return record.event;
    } catch (error) {
      throw auditWriteFailed(error, traceId, entry.type);
    }
  }

  /**
   * Validates an entry into an event with its id, timestamp and canonical JSON, ready to be
   * appended (also by writers that append it in their own statement, such as the ledger's), and
   * the artifact row of its payload, if any. Throws `AUDIT_INVALID` with every problem.
   */
  prepare(
    traceId: string,
    entry: AuditEntry,
  ): { record: AuditRecord; payload: ArtifactsTable | null } {
    const recordedAt = this.#clock.now();
    const payload =
      entry.payload === undefined
        ? null
        : artifactRow({
            id: this.#newId(),
            kind: "audit-payload",
            body: entry.payload,
            now: recordedAt,
          });
    const event = this.#validated(traceId, entry, recordedAt, payload?.id ?? null);
    // The payload's hash is chained with the event, so an altered payload breaks the chain.
    return { record: auditRecord(event, recordedAt, payload?.content_hash ?? null), payload };
  }

  #validated(
    traceId: string,
    entry: AuditEntry,
    recordedAt: number,
    payloadRef: string | null,
  ): AuditEvent {
    const candidate: AuditEventInput = {
      audit_id: entry.key === undefined ? this.#newId() : keyedAuditId(entry.key),
      timestamp: isoFromMs(recordedAt),
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
      payload_ref: payloadRef,
    };
    // The hand-written check admits what the contract admits; zod then only runs to report.
    const checked = checkAuditEvent(candidate, true);
    if (checked) return checked;
    const result = validateContract("AuditEvent", candidate);
    if (!result.ok) {
      throw new KeelError("AUDIT_INVALID", `The audit event "${String(entry.type)}" is invalid.`, {
        details: { problems: result.problems },
        hint: result.problems.map((p) => `${p.path}: ${p.message}`).join("; "),
      });
    }
    return result.value;
  }

  /**
   * Its own transaction: native statements on SQLite, one CTE statement on Postgres (a keyed
   * event: a transaction, see below). `keyed`:
   * nothing is appended when an event with the record's id is already in the log.
   */
  async #appendAlone(
    record: AuditRecord,
    payload: ArtifactsTable | null,
    keyed: boolean,
  ): Promise<void> {
    const native = this.#store.native;
    const id = record.event.audit_id;
    if (native.dialect === "sqlite") {
      const db = native.database;
      await sqliteWrite(this.#store, db, () => {
        // Inside BEGIN IMMEDIATE: no other writer can append the same id between look and write.
        if (keyed && auditIdTakenSqlite(db, id)) return;
        if (payload) insertArtifactSqlite(db, payload);
        appendAuditSqlite(db, record);
      });
      return;
    }
    if (keyed) {
      // A keyed append looks for its id after taking the head's lock, in a transaction: one
      // statement cannot (its snapshot predates the lock, so two appenders of one key at once
      // would both see it free), and no unique index on the id stops the second (migration 020).
      await runtimeDb(this.#store)
        .transaction()
        .execute((tx) => this.#appendIn(tx, record, payload, true));
      return;
    }
    const pool = native.pool;
    const append = (): Promise<boolean> => appendAuditPostgres(pool, record, payload);
    if (await append()) return;
    await this.ensureHead();
    if (!(await append())) {
      throw new KeelError("INTERNAL", "The audit chain head vanished while appending.");
    }
  }

  /** Creates the chain head if it is missing (a new database, or after `keel db reset`). */
  async ensureHead(): Promise<void> {
    await runtimeDb(this.#store)
      .transaction()
      .execute((tx) => this.#lockHead(tx, this.#clock.now()));
  }

  async #appendIn(
    tx: Transaction<RuntimeDatabase>,
    record: AuditRecord,
    payload: ArtifactsTable | null,
    keyed: boolean,
  ): Promise<void> {
    // The head is locked first, so the look below sees every append committed before ours.
    const head = await this.#lockHead(tx, record.recordedAt);
    if (keyed) {
      const taken = await tx
        .selectFrom("state_audit_events")
        .select("id")
        .where("id", "=", record.event.audit_id)
        .executeTakeFirst();
      if (taken) return;
    }
    if (payload) await tx.insertInto("state_artifacts").values(payload).execute();
    const seq = Number(head.last_seq) + 1;
    const eventHash = chainHashOf(head.last_hash, record.canonical);
    const values = auditRowValues(record);
    const row = Object.fromEntries(
      AUDIT_RECORD_COLUMNS.map((column, i) => [column, values[i] ?? null]),
    ) as Omit<AuditEventsTable, "seq" | "prev_hash" | "event_hash">;
    await tx
      .insertInto("state_audit_events")
      .values({ ...row, seq, prev_hash: head.last_hash, event_hash: eventHash })
      .execute();
    await tx
      .updateTable("state_audit_heads")
      .set({ last_seq: seq, last_hash: eventHash, updated_at: record.recordedAt })
      .where("id", "=", AUDIT_HEAD_ID)
      .execute();
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

/**
 * A failed append fails the operation it records: anything but a KeelError becomes
 * `AUDIT_WRITE_FAILED`, saying what was not done and what to check.
 */
export function auditWriteFailed(error: unknown, traceId: string, type: string): unknown {
  if (isKeelError(error)) return error;
  return new KeelError(
    "AUDIT_WRITE_FAILED",
    `The audit event "${type}" for trace ${traceId} could not be written, so the operation it records was not done.`,
    {
      cause: error,
      details: { traceId, type, reason: String((error as Error)?.message ?? error) },
      hint: "Check that the database is reachable and writable, then retry the operation.",
    },
  );
}

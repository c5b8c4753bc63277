import { type Clock, KeelError } from "../../core/index.js";
import { artifactRow } from "../artifacts/artifact-store.js";
import type { AuditRecord } from "../audit/audit-record.js";
import type { AuditEntry, AuditWriter } from "../audit/audit-writer.js";
import type { ToolCallStatus } from "../contracts/enums.js";
import type { ErrorDetail } from "../contracts/primitives.js";
import type { ToolCall, ToolResult } from "../contracts/tool-call.js";
import { autonomyFromDb, autonomyToDb } from "../db/codec.js";
import type { ArtifactKind, ArtifactsTable, ToolCallsTable } from "../db/tables.js";
import { assertTransition } from "../policy/transitions.js";
import type { RegisteredTool } from "../tools/tool-registry.js";
import { type SeenLease, seenLease } from "./call-lease.js";
import { toolCallFromRow, toolResultFromRow } from "./ledger-rows.js";
import { ledgerWriteFailed } from "./ledger-write-errors.js";
import type { AttemptWrite, LedgerWrites } from "./ledger-writes.js";
import { type MaybePromise, thenNow } from "./maybe-promise.js";
import type { ToolCallRequest } from "./tool-call-request.js";

type Entry = Pick<AuditEntry, "type" | "summary" | "outcome" | "payload">;

/**
 * Writes the ledger: each status change is one commit that checks the row is still where it
 * was last seen (so a late answer from a dead process cannot overwrite what recovery wrote),
 * applies the legal transition, and holds the audit event that records it.
 */
export class LedgerRecorder {
  readonly #writes: LedgerWrites;
  readonly #audit: AuditWriter;
  readonly #clock: Clock;
  readonly #newId: () => string;
  readonly #lease: { owner: string; ttlMs: number };

  constructor(
    writes: LedgerWrites,
    audit: AuditWriter,
    clock: Clock,
    newId: () => string,
    lease: { owner: string; ttlMs: number },
  ) {
    this.#writes = writes;
    this.#audit = audit;
    this.#clock = clock;
    this.#newId = newId;
    this.#lease = lease;
  }

  /** This ledger's owner id, written on every `attempted` row it records. */
  get owner(): string {
    return this.#lease.owner;
  }

  /**
   * Takes the lease of an `unknown` call whose lease has lapsed, to run it again, audited by
   * `entry` in the same commit (whose sequence number is the claim's new fence); null when
   * another worker took it first (or it was settled meanwhile).
   */
  async claimUnknown(row: ToolCallsTable, entry: Entry): Promise<ToolCallsTable | null> {
    const claimed = {
      ...row,
      lease_owner: this.#lease.owner,
      lease_expires_at: this.#clock.now() + this.#lease.ttlMs,
    };
    const record = this.#record(claimed, entry);
    let fence: number | null;
    try {
      fence = await this.#writes.claimUnknown(
        {
          id: row.id,
          owner: this.#lease.owner,
          expiresAt: claimed.lease_expires_at,
          seen: seenLease(row),
        },
        record,
      );
    } catch (error) {
      throw ledgerWriteFailed(error, record, row.idempotency_key);
    }
    return fence === null ? null : { ...claimed, fence };
  }

  /** Extends this ledger's lease on a call it runs; false once the call moved on. */
  async renewLease(row: ToolCallsTable): Promise<boolean> {
    return this.#writes.renewLease(
      row.id,
      this.#lease.owner,
      this.#clock.now() + this.#lease.ttlMs,
    );
  }

  /**
   * Commits `attempted` (with the redacted request on the row) before the effect — unless a live
   * (not failed) call with the same tool and key exists, which is returned instead with nothing
   * written. `requestJson` is the canonical JSON of the redacted request (what `requestHash`
   * hashes). At once when the write is (no promise, and a throw propagates), else a promise.
   */
  attemptUnlessLive(
    tool: RegisteredTool,
    request: ToolCallRequest,
    requestJson: string,
    requestHash: string,
  ): MaybePromise<{ row: ToolCallsTable; recorded: boolean }> {
    const now = this.#clock.now();
    const row: ToolCallsTable = {
      id: this.#newId(),
      trace_id: request.traceId,
      task_id: request.taskId ?? null,
      step_id: request.stepId ?? null,
      event_id: request.eventId ?? null,
      connector_id: request.connectorId ?? tool.spec.namespace,
      tool_name: tool.id,
      tool_version: tool.spec.version,
      action: request.action ?? tool.spec.name,
      request_hash: requestHash,
      request_artifact_id: null,
      idempotency_key: request.idempotencyKey,
      status: "attempted",
      latency_ms: null,
      risk_level: request.riskLevel,
      autonomy_level: autonomyToDb(request.autonomyLevel),
      result_status: null,
      response_hash: null,
      result_artifact_id: null,
      error_json: null,
      created_at: now,
      updated_at: now,
      resolved_at: null,
      cost_estimate: tool.spec.cost_estimate,
      lease_owner: this.#lease.owner,
      lease_expires_at: now + this.#lease.ttlMs,
      request_json: requestJson,
      live_key: request.idempotencyKey,
      fence: null,
    };
    const record = this.#record(row, {
      type: "tool_call.attempted",
      summary: `${tool.id}: ${row.action} attempted${row.cost_estimate === null ? "" : ` (cost estimate ${row.cost_estimate})`}`,
      outcome: "info",
    });
    return thenNow(
      () => this.#writes.attemptUnlessLive(row, record),
      (written: AttemptWrite) =>
        "live" in written
          ? { row: written.live, recorded: false }
          : { row: { ...row, fence: written.fence }, recorded: true },
      (error: unknown) => {
        throw ledgerWriteFailed(error, record, row.idempotency_key);
      },
    );
  }

  /** Records the outcome (see `#transitionRow`: at once when the write is). */
  recordSucceeded(
    row: ToolCallsTable,
    output: unknown,
    latencyMs: number | null,
    entry: Entry,
  ): MaybePromise<{ toolCall: ToolCall; result: ToolResult }> {
    const now = this.#clock.now();
    const artifact = this.#artifact("tool-result", output, now);
    return this.#transition(
      row,
      {
        status: "succeeded",
        latency_ms: latencyMs ?? row.latency_ms,
        result_status: "succeeded",
        response_hash: artifact.content_hash,
        result_artifact_id: artifact.id,
        resolved_at: now,
        updated_at: now,
        lease_expires_at: null,
      },
      artifact,
      entry,
    );
  }

  recordFailed(
    row: ToolCallsTable,
    detail: ErrorDetail,
    latencyMs: number | null,
    entry: Entry,
  ): MaybePromise<{ toolCall: ToolCall; result: ToolResult }> {
    const now = this.#clock.now();
    const artifact = this.#artifact("tool-error", detail, now);
    return this.#transition(
      row,
      {
        status: "failed",
        latency_ms: latencyMs ?? row.latency_ms,
        result_status: "failed",
        response_hash: artifact.content_hash,
        result_artifact_id: artifact.id,
        error_json: JSON.stringify(detail),
        resolved_at: now,
        updated_at: now,
        lease_expires_at: null,
        // A failed call frees its key: a retry may record a new call with it.
        live_key: null,
      },
      artifact,
      entry,
    );
  }

  /**
   * `attempted` → `unknown`. With `lapsed` (recovery, or a caller finding another's call), only
   * while the row's lease is still the lapsed one it was read with: an owner that renewed it is
   * still running.
   */
  async markUnknown(
    row: ToolCallsTable,
    reason: string,
    latencyMs?: number,
    lapsed = false,
  ): Promise<ToolCallsTable> {
    const now = this.#clock.now();
    return this.#transitionRow(
      row,
      // Nobody holds a call in doubt until a retry claims it (`claimUnknown`).
      {
        status: "unknown",
        latency_ms: latencyMs ?? row.latency_ms,
        updated_at: now,
        lease_expires_at: null,
      },
      null,
      {
        type: "tool_call.unknown",
        summary: `${row.tool_name}: outcome unknown — ${reason}; never assumed to have succeeded`,
        outcome: "failure",
      },
      lapsed ? seenLease(row) : undefined,
    );
  }

  /** Audits something about a call that changes nothing in the ledger (a replay, a hold). */
  async audited(row: ToolCallsTable, entry: Entry): Promise<void> {
    await this.#audit.write(row.trace_id, this.#entry(row, entry));
  }

  #artifact(kind: ArtifactKind, body: unknown, now: number): ArtifactsTable {
    return artifactRow({ id: this.#newId(), kind, body, now });
  }

  #transition(
    row: ToolCallsTable,
    changes: Partial<ToolCallsTable> & { status: ToolCallStatus },
    artifact: ArtifactsTable,
    entry: Entry,
  ): MaybePromise<{ toolCall: ToolCall; result: ToolResult }> {
    return this.#transitionRow(row, changes, artifact, entry, undefined, (updated) => {
      const result = toolResultFromRow(updated);
      if (!result) {
        throw new KeelError(
          "INTERNAL",
          `Tool call "${row.id}" has no result after ${changes.status}.`,
        );
      }
      return { toolCall: toolCallFromRow(updated), result };
    });
  }

  /**
   * Moves a row on if it is still where we last saw it, with its audit event in the same commit;
   * `then` maps the moved row — at once when the write is done at once (no promise), else after
   * it. A refused transition is a rejected promise.
   */
  #transitionRow<T = ToolCallsTable>(
    row: ToolCallsTable,
    changes: Partial<ToolCallsTable> & { status: ToolCallStatus },
    artifact: ArtifactsTable | null,
    entry: Entry,
    lease?: SeenLease,
    then: (updated: ToolCallsTable) => T = (updated) => updated as T,
  ): MaybePromise<T> {
    let updated: ToolCallsTable;
    let record: AuditRecord;
    try {
      assertTransition("tool_call", row.status, changes.status, row.id);
      updated = { ...row, ...changes };
      record = this.#record(updated, entry);
    } catch (error) {
      return Promise.reject(error);
    }
    return thenNow(
      () => this.#writes.transition(updated, row.status, artifact, record, lease),
      (moved) => {
        if (!moved) {
          throw new KeelError(
            "ILLEGAL_TRANSITION",
            `Tool call "${row.id}" changed while this process was recording it (expected "${row.status}").`,
            {
              details: { toolCallId: row.id, expected: row.status, to: changes.status },
              hint: "Another worker is handling this call; do not run it twice.",
            },
          );
        }
        return then(updated);
      },
      (error: unknown) => {
        throw ledgerWriteFailed(error, record, row.idempotency_key);
      },
    );
  }

  #record(row: ToolCallsTable, entry: Entry): AuditRecord {
    return this.#audit.prepare(row.trace_id, this.#entry(row, entry)).record;
  }

  #entry(row: ToolCallsTable, entry: Entry): AuditEntry {
    // Named, not spread: a spread copies through a generic builtin, twice a call.
    return {
      stage: "tool_call",
      type: entry.type,
      summary: entry.summary,
      outcome: entry.outcome,
      payload: entry.payload,
      refs: {
        tool_call_id: row.id,
        task_id: row.task_id,
        step_id: row.step_id,
        event_id: row.event_id,
      },
      latencyMs: row.latency_ms === null ? null : Number(row.latency_ms),
      toolName: row.tool_name,
      connectorId: row.connector_id,
      riskLevel: row.risk_level,
      autonomyLevel: autonomyFromDb(row.autonomy_level),
    };
  }
}

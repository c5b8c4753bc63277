import type { Transaction } from "kysely";
import { type Clock, KeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import { putArtifact } from "../artifacts/artifact-store.js";
import type { AuditEntry, AuditWriter } from "../audit/audit-writer.js";
import type { AutonomyLevel, ToolCallStatus } from "../contracts/enums.js";
import type { ErrorDetail } from "../contracts/primitives.js";
import type { ToolCall, ToolResult } from "../contracts/tool-call.js";
import { autonomyToDb } from "../db/codec.js";
import { type RuntimeDatabase, runtimeDb, type ToolCallsTable } from "../db/tables.js";
import { assertTransition } from "../policy/transitions.js";
import type { RegisteredTool } from "../tools/tool-registry.js";
import { toolCallFromRow, toolResultFromRow } from "./ledger-rows.js";
import type { ToolCallRequest } from "./tool-call-request.js";

type Entry = Pick<AuditEntry, "type" | "summary" | "outcome">;

/**
 * Writes the ledger: each status change is one transaction that checks the row is still where
 * it was last seen (so a late answer from a dead process cannot overwrite what recovery wrote),
 * applies the legal transition, and audits it in the same transaction.
 */
export class LedgerRecorder {
  readonly #store: Store;
  readonly #audit: AuditWriter;
  readonly #clock: Clock;
  readonly #newId: () => string;

  constructor(store: Store, audit: AuditWriter, clock: Clock, newId: () => string) {
    this.#store = store;
    this.#audit = audit;
    this.#clock = clock;
    this.#newId = newId;
  }

  async recordAttempted(
    tool: RegisteredTool,
    request: ToolCallRequest,
    redacted: Record<string, unknown>,
    requestHash: string,
  ): Promise<ToolCallsTable> {
    const now = this.#clock.now();
    const id = this.#newId();
    return runtimeDb(this.#store)
      .transaction()
      .execute(async (tx) => {
        const artifact = await putArtifact(tx, {
          id: this.#newId(),
          kind: "tool-request",
          body: redacted,
          now,
        });
        const row: ToolCallsTable = {
          id,
          trace_id: request.traceId,
          task_id: request.taskId ?? null,
          step_id: request.stepId ?? null,
          event_id: request.eventId ?? null,
          connector_id: request.connectorId ?? tool.spec.namespace,
          tool_name: tool.id,
          tool_version: tool.spec.version,
          action: request.action ?? tool.spec.name,
          request_hash: requestHash,
          request_artifact_id: artifact.id,
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
        };
        await tx.insertInto("state_tool_calls").values(row).execute();
        await this.#auditIn(tx, row, {
          type: "tool_call.attempted",
          summary: `${tool.id}: ${row.action} attempted`,
          outcome: "info",
        });
        return row;
      });
  }

  async recordSucceeded(
    row: ToolCallsTable,
    output: unknown,
    latencyMs: number | null,
    entry: Entry,
  ): Promise<{ toolCall: ToolCall; result: ToolResult }> {
    const now = this.#clock.now();
    return this.#transition(
      row,
      "succeeded",
      async (tx) => {
        const artifact = await putArtifact(tx, {
          id: this.#newId(),
          kind: "tool-result",
          body: output,
          now,
        });
        return {
          status: "succeeded",
          latency_ms: latencyMs ?? row.latency_ms,
          result_status: "succeeded",
          response_hash: artifact.contentHash,
          result_artifact_id: artifact.id,
          resolved_at: now,
          updated_at: now,
        };
      },
      entry,
    );
  }

  async recordFailed(
    row: ToolCallsTable,
    detail: ErrorDetail,
    latencyMs: number | null,
    entry: Entry,
  ): Promise<{ toolCall: ToolCall; result: ToolResult }> {
    const now = this.#clock.now();
    return this.#transition(
      row,
      "failed",
      async (tx) => {
        const artifact = await putArtifact(tx, {
          id: this.#newId(),
          kind: "tool-error",
          body: detail,
          now,
        });
        return {
          status: "failed",
          latency_ms: latencyMs ?? row.latency_ms,
          result_status: "failed",
          response_hash: artifact.contentHash,
          result_artifact_id: artifact.id,
          error_json: JSON.stringify(detail),
          resolved_at: now,
          updated_at: now,
        };
      },
      entry,
    );
  }

  async markUnknown(
    row: ToolCallsTable,
    reason: string,
    latencyMs?: number,
  ): Promise<ToolCallsTable> {
    const now = this.#clock.now();
    const { row: updated } = await this.#transitionRow(
      row,
      "unknown",
      async () => ({ status: "unknown", latency_ms: latencyMs ?? row.latency_ms, updated_at: now }),
      {
        type: "tool_call.unknown",
        summary: `${row.tool_name}: outcome unknown — ${reason}; never assumed to have succeeded`,
        outcome: "failure",
      },
    );
    return updated;
  }

  async #transition(
    row: ToolCallsTable,
    to: ToolCallStatus,
    changes: (tx: Transaction<RuntimeDatabase>) => Promise<Partial<ToolCallsTable>>,
    entry: Entry,
  ): Promise<{ toolCall: ToolCall; result: ToolResult }> {
    const { row: updated } = await this.#transitionRow(row, to, changes, entry);
    const result = toolResultFromRow(updated);
    if (!result)
      throw new KeelError("INTERNAL", `Tool call "${row.id}" has no result after ${to}.`);
    return { toolCall: toolCallFromRow(updated), result };
  }

  /** Moves a row to `to` if it is still where we last saw it, auditing in the same transaction. */
  async #transitionRow(
    row: ToolCallsTable,
    to: ToolCallStatus,
    changes: (tx: Transaction<RuntimeDatabase>) => Promise<Partial<ToolCallsTable>>,
    entry: Entry,
  ): Promise<{ row: ToolCallsTable }> {
    assertTransition("tool_call", row.status, to, row.id);
    return runtimeDb(this.#store)
      .transaction()
      .execute(async (tx) => {
        const set = await changes(tx);
        const result = await tx
          .updateTable("state_tool_calls")
          .set(set)
          .where("id", "=", row.id)
          .where("status", "=", row.status)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) {
          throw new KeelError(
            "ILLEGAL_TRANSITION",
            `Tool call "${row.id}" changed while this process was recording it (expected "${row.status}").`,
            {
              details: { toolCallId: row.id, expected: row.status, to },
              hint: "Another worker is handling this call; do not run it twice.",
            },
          );
        }
        const updated = { ...row, ...set } as ToolCallsTable;
        await this.#auditIn(tx, updated, entry);
        return { row: updated };
      });
  }

  async audited(row: ToolCallsTable, entry: Entry): Promise<void> {
    await runtimeDb(this.#store)
      .transaction()
      .execute((tx) => this.#auditIn(tx, row, entry));
  }

  async #auditIn(
    tx: Transaction<RuntimeDatabase>,
    row: ToolCallsTable,
    entry: Entry,
  ): Promise<void> {
    await this.#audit.write(
      row.trace_id,
      {
        stage: "tool_call",
        ...entry,
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
        autonomyLevel: row.autonomy_level.toUpperCase() as AutonomyLevel,
      },
      tx,
    );
  }
}

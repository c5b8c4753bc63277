import { CompiledQuery, type Transaction } from "kysely";
import {
  type RunRecord,
  type RunTransition,
  runInsertStatement,
  runUpdateStatement,
} from "../../checkpoint/index.js";
import type { Store } from "../../store/index.js";
import type { AuditEntry, AuditWriter } from "../audit/audit-writer.js";
import { AutonomyLevel } from "../contracts/enums.js";
import { numbered } from "../db/postgres-native.js";
import { type RuntimeDatabase, runtimeDb } from "../db/tables.js";
import { errorDetail } from "./governed-node.js";
import type { GovernedPause } from "./node-context.js";
import { type RunGrant, saveGrant } from "./run-grants.js";

type TaskEntry = Pick<AuditEntry, "type" | "summary" | "outcome"> & { payload?: unknown };

/**
 * The governed runtime's run (Task) records: a run is created with its grant and `task.created`,
 * and every status change is written with the `task.*` event that records it, in one transaction
 * each, so the audit log and the run never disagree (a failed audit write fails the change).
 * `write` is the RunStore's `writeTransition`.
 */
export class TaskRecords {
  readonly #store: Store;
  readonly #audit: AuditWriter;

  constructor(store: Store, audit: AuditWriter) {
    this.#store = store;
    this.#audit = audit;
  }

  /** Stores a drafted run (`RunStore.draft`) with its grant and its creation event. */
  async create(run: RunRecord, grant: RunGrant, entry: TaskEntry): Promise<void> {
    await runtimeDb(this.#store)
      .transaction()
      .execute(async (tx) => {
        await this.#run(tx, runInsertStatement(run));
        await saveGrant(tx, grant);
        await this.#audit.write(grant.traceId, this.#entry(run, entry), tx);
      });
  }

  /** Moves a run if it is still where it was seen, with its `task.*` event; false if it moved. */
  readonly write = async (transition: RunTransition): Promise<boolean> => {
    const { previous, cause } = transition;
    // The run keeps the whole seed-003 ErrorDetail (retryable, details), not just code and message.
    const next =
      transition.next.status === "failed" && cause.error !== undefined
        ? { ...transition.next, error: errorDetail(cause.error) }
        : transition.next;
    const statement =
      next === transition.next ? transition.statement : runUpdateStatement(next, previous.status);
    return runtimeDb(this.#store)
      .transaction()
      .execute(async (tx) => {
        if ((await this.#run(tx, statement)) !== 1) return false;
        await this.#audit.write(
          next.traceId,
          this.#entry(next, taskEntry(previous, next, cause)),
          tx,
        );
        return true;
      });
  };

  async #run(
    tx: Transaction<RuntimeDatabase>,
    statement: { sql: string; params: unknown[] },
  ): Promise<number> {
    const text = this.#store.dialect === "postgres" ? numbered(statement.sql) : statement.sql;
    const result = await tx.executeQuery(CompiledQuery.raw(text, statement.params));
    return Number(result.numAffectedRows ?? 0);
  }

  #entry(run: RunRecord, entry: TaskEntry): AuditEntry {
    const autonomy = AutonomyLevel.safeParse(run.autonomyLevelAtStart);
    return {
      stage: "execute",
      ...entry,
      refs: { task_id: run.id, event_id: run.triggerEventId },
      autonomyLevel: autonomy.success ? autonomy.data : null,
    };
  }
}

/** The `task.*` event of a status change. */
function taskEntry(previous: RunRecord, next: RunRecord, cause: RunTransition["cause"]): TaskEntry {
  const id = next.id;
  switch (next.status) {
    case "running":
      if (previous.status === "pending")
        return { type: "task.started", summary: `run ${id} started`, outcome: "info" };
      if (previous.status === "running")
        return {
          type: "task.recovered",
          summary: `run ${id} resumed after its process stopped`,
          outcome: "info",
        };
      if (previous.status === "failed")
        return { type: "task.retried", summary: `run ${id} retried`, outcome: "info" };
      return { type: "task.resumed", summary: `run ${id} resumed`, outcome: "info" };
    case "paused": {
      const waiting = pausesOf(cause.result);
      return {
        type: "task.paused",
        summary: `run ${id} paused: ${waiting.map((w) => (w.approval_id ? `approval ${w.approval_id} for ${w.tool}` : `operator for ${w.tool}`)).join(", ") || "interrupted"}`,
        outcome: "info",
      };
    }
    case "succeeded":
      return { type: "task.succeeded", summary: `run ${id} succeeded`, outcome: "success" };
    case "failed":
      return {
        type: "task.failed",
        summary: `run ${id} failed (${next.error?.code ?? "?"}): ${next.error?.message ?? ""}`,
        outcome: "failure",
        payload: next.error,
      };
    case "canceled":
      return {
        type: "task.canceled",
        summary: `run ${id} canceled: ${next.cancelReason ?? "no reason given"}`,
        outcome: "info",
      };
    case "pending":
      return { type: "task.waiting", summary: `run ${id} waits to run again`, outcome: "info" };
  }
}

/** The pauses a paused run reports in its result's `__interrupt__`. */
export function pausesOf(result: unknown): GovernedPause[] {
  const interrupts = (result as { __interrupt__?: { value?: unknown }[] } | null)?.__interrupt__;
  if (!Array.isArray(interrupts)) return [];
  return interrupts
    .map((entry) => entry.value)
    .filter(
      (value): value is GovernedPause =>
        typeof value === "object" && value !== null && "kind" in value,
    );
}

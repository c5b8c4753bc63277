import { sql, type Transaction } from "kysely";
import { type Clock, KeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import type { AuditEntry, AuditWriter } from "../audit/audit-writer.js";
import type { StepStatus } from "../contracts/enums.js";
import type { ErrorDetail } from "../contracts/primitives.js";
import type { RetryPolicy } from "../contracts/task.js";
import { type RuntimeDatabase, runtimeDb, type StepsTable } from "../db/tables.js";
import type { RetryPlan } from "../policy/retry.js";
import { assertTransition } from "../policy/transitions.js";
import { asJsonObject } from "./step-rows.js";

/** What a node execution says about itself when it starts. */
export interface EnterStep {
  runId: string;
  traceId: string;
  /** The engine's deterministic task id: the same when the node is re-run after a pause or crash. */
  taskKey: string;
  name: string;
  input: unknown;
  retryPolicy: RetryPolicy;
  maxAttempts: number;
}

type Entry = Pick<AuditEntry, "type" | "summary" | "outcome"> & { payload?: unknown };

/**
 * Step records (the seed's Step) of governed runs. A step is found again by its run and the
 * engine's task id, so a node re-run after an interrupt or a crash continues the same step;
 * `visit` numbers the executions of one node within a run. Every status change is a legal
 * transition, made with a compare-and-set on the status last seen and audited in the same
 * transaction; the input is fixed at creation (the database refuses to change it).
 */
export class StepStore {
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

  /**
   * Starts (or continues) the step of one node execution and returns it `running`: a new step,
   * a paused one resumed, a retry whose wake time came, or one found `running` after a crash.
   * A step that already succeeded is returned as it is (its calls replay from the ledger).
   */
  async enter(options: EnterStep): Promise<StepsTable> {
    const db = runtimeDb(this.#store);
    return db.transaction().execute(async (tx) => {
      const found = await tx
        .selectFrom("state_steps")
        .selectAll()
        .where("run_id", "=", options.runId)
        // This task's step, or its re-entries after a failure (`<task key>#<time>`): an exact
        // prefix compare, not LIKE, whose `_` and `%` a node name may contain.
        .where(
          sql<boolean>`(task_key = ${options.taskKey} OR substr(task_key, 1, ${options.taskKey.length + 1}) = ${`${options.taskKey}#`})`,
        )
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .executeTakeFirst();
      const now = this.#clock.now();
      if (found && found.status !== "failed") {
        if (found.status === "succeeded" || found.status === "running") return found;
        return this.#move(
          tx,
          found,
          "running",
          { started_at: found.started_at ?? now },
          {
            type: found.status === "paused" ? "step.resumed" : "step.retried",
            summary: `${found.name}: ${found.status === "paused" ? "resumed" : `attempt ${Number(found.attempt) + 1} started`}`,
            outcome: "info",
          },
        );
      }
      const visit = found
        ? Number(found.visit)
        : Number(
            (
              await tx
                .selectFrom("state_steps")
                .select((eb) => eb.fn.max("visit").as("visit"))
                .where("run_id", "=", options.runId)
                .where("name", "=", options.name)
                .executeTakeFirst()
            )?.visit ?? 0,
          ) + 1;
      const row: StepsTable = {
        id: this.#newId(),
        run_id: options.runId,
        trace_id: options.traceId,
        // A failed step re-entered (the run was retried) gets a fresh row for the same visit.
        task_key: found ? `${options.taskKey}#${now}` : options.taskKey,
        name: options.name,
        visit,
        status: "running",
        attempt: 0,
        max_attempts: Math.max(1, Math.floor(options.maxAttempts)),
        retry_policy_json: JSON.stringify(options.retryPolicy),
        input_json: JSON.stringify(asJsonObject(options.input)),
        checkpoint_json: "{}",
        output_json: null,
        idempotency_key: `${options.runId}:${options.name}#${visit}`,
        error_json: null,
        next_wake_at: null,
        started_at: now,
        ended_at: null,
        created_at: now,
        updated_at: now,
      };
      await tx.insertInto("state_steps").values(row).execute();
      await this.#auditIn(tx, row, {
        type: "step.started",
        summary: `${row.name}: step started (visit ${visit})`,
        outcome: "info",
      });
      return row;
    });
  }

  /** Records the step's output: running → succeeded. */
  succeed(row: StepsTable, output: unknown): Promise<StepsTable> {
    return this.#moveOwn(
      row,
      "succeeded",
      { output_json: JSON.stringify(asJsonObject(output)), ended_at: this.#clock.now() },
      { type: "step.succeeded", summary: `${row.name}: succeeded`, outcome: "success" },
    );
  }

  /** Records the step's failure: running or paused → failed, with the error. */
  fail(row: StepsTable, error: ErrorDetail): Promise<StepsTable> {
    return this.#moveOwn(
      row,
      "failed",
      { error_json: JSON.stringify(error), ended_at: this.#clock.now(), next_wake_at: null },
      {
        type: "step.failed",
        summary: `${row.name}: failed (${error.code}): ${error.message}`,
        outcome: "failure",
        payload: error,
      },
    );
  }

  /** The step waits for a person (an approval or an operator): running → paused. */
  pause(row: StepsTable, why: string): Promise<StepsTable> {
    return this.#moveOwn(
      row,
      "paused",
      {},
      {
        type: "step.paused",
        summary: `${row.name}: paused — ${why}`,
        outcome: "info",
      },
    );
  }

  /** A failed attempt will be retried at the plan's wake time: running → pending, attempt + 1. */
  scheduleRetry(
    row: StepsTable,
    plan: Extract<RetryPlan, { retry: true }>,
    error: ErrorDetail,
  ): Promise<StepsTable> {
    return this.#moveOwn(
      row,
      "pending",
      {
        attempt: plan.nextAttempt,
        next_wake_at: plan.nextWakeAt,
        error_json: JSON.stringify(error),
      },
      {
        type: "step.retry_scheduled",
        summary: `${row.name}: attempt ${Number(row.attempt) + 1} failed (${error.code}); attempt ${plan.nextAttempt + 1} at ${plan.nextWakeTime}`,
        outcome: "failure",
        payload: error,
      },
    );
  }

  /** Saves the step's mid-step checkpoint (resumability data); the status does not change. */
  async saveCheckpoint(row: StepsTable, checkpoint: unknown): Promise<StepsTable> {
    const set = {
      checkpoint_json: JSON.stringify(asJsonObject(checkpoint)),
      updated_at: this.#clock.now(),
    };
    await runtimeDb(this.#store)
      .updateTable("state_steps")
      .set(set)
      .where("id", "=", row.id)
      .execute();
    return { ...row, ...set };
  }

  /** The steps of a run, in the order they started. */
  list(runId: string): Promise<StepsTable[]> {
    return runtimeDb(this.#store)
      .selectFrom("state_steps")
      .selectAll()
      .where("run_id", "=", runId)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
  }

  #moveOwn(
    row: StepsTable,
    to: StepStatus,
    set: Partial<StepsTable>,
    entry: Entry,
  ): Promise<StepsTable> {
    return runtimeDb(this.#store)
      .transaction()
      .execute((tx) => this.#move(tx, row, to, set, entry));
  }

  async #move(
    tx: Transaction<RuntimeDatabase>,
    row: StepsTable,
    to: StepStatus,
    set: Partial<StepsTable>,
    entry: Entry,
  ): Promise<StepsTable> {
    assertTransition("step", row.status, to, row.id);
    const changes = { ...set, status: to, updated_at: this.#clock.now() };
    const result = await tx
      .updateTable("state_steps")
      .set(changes)
      .where("id", "=", row.id)
      .where("status", "=", row.status)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) {
      throw new KeelError(
        "ILLEGAL_TRANSITION",
        `Step "${row.id}" changed while this process was recording it (expected "${row.status}").`,
        {
          details: { stepId: row.id, expected: row.status, to },
          hint: "Another worker is running this step; only the lease holder may move it.",
        },
      );
    }
    const updated: StepsTable = { ...row, ...changes };
    await this.#auditIn(tx, updated, entry);
    return updated;
  }

  async #auditIn(tx: Transaction<RuntimeDatabase>, row: StepsTable, entry: Entry): Promise<void> {
    await this.#audit.write(
      row.trace_id,
      { stage: "execute", ...entry, refs: { task_id: row.run_id, step_id: row.id } },
      tx,
    );
  }
}

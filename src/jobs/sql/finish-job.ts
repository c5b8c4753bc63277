import { sql } from "kysely";
import type { JobFailureReason, JobStatus } from "../types.js";
import type { JobsDb } from "./db.js";

/** The metrics a finished job's execution record carries. */
export interface ExecutionMetrics {
  readonly exitCode?: number | null;
  readonly durationMs?: number | null;
  readonly tokensIn?: number | null;
  readonly tokensOut?: number | null;
  readonly reportPath?: string | null;
  readonly errorMessage?: string | null;
}

/** One guarded move of a live job to a terminal state. */
export interface FinishJob {
  readonly id: string;
  readonly executionId: string;
  /** The states the job may be in; anything else leaves it untouched. */
  readonly from: readonly JobStatus[];
  readonly status: "completed" | "failed";
  readonly failureReason: JobFailureReason | null;
  /** The execution record's status (`cancelled` for a user cancel). */
  readonly executionStatus: "completed" | "failed" | "cancelled";
  /** When given, the row must also carry this nonce (record's authentication, re-checked). */
  readonly nonce?: string;
  readonly now: number;
  readonly metrics: ExecutionMetrics;
}

/** The row of the job as it was finished, plus the execution id written. */
export interface FinishedJob {
  readonly jobId: string;
  readonly actionId: string;
  readonly actionVersion: string;
  readonly nodeId: string;
  readonly contentHash: string;
  readonly startedAt: number;
  readonly executionId: string;
}

/**
 * Moves a job to its terminal state and writes its execution record, atomically. Postgres: one
 * statement (an UPDATE … RETURNING feeding the INSERT in a CTE). SQLite (no DML in a CTE): the
 * two statements in the caller's transaction — call it inside one. Resolves undefined when the
 * guard refused (job gone, not in `from`, nonce differs): nothing was written.
 */
export async function finishJob(
  db: JobsDb,
  dialect: "sqlite" | "postgres",
  f: FinishJob,
): Promise<FinishedJob | undefined> {
  const m = f.metrics;
  if (dialect === "postgres") {
    const rows = await sql<FinishedJob>`
      WITH done AS (
        UPDATE state_jobs
           SET status = ${f.status}, failure_reason = ${f.failureReason}, finished_at = ${f.now}
         WHERE id = ${f.id}
           AND status IN (${sql.join(f.from)})
           ${f.nonce === undefined ? sql`` : sql`AND nonce = ${f.nonce}`}
        RETURNING *
      )
      INSERT INTO state_executions (id, kind, extension_id, extension_version, node_ids_json,
        content_hash, status, failure_reason, exit_code, runner, started_at, finished_at,
        duration_ms, tokens_in, tokens_out, report_path, job_id, error_message)
      SELECT ${f.executionId}, 'action', action_id, action_version, json_build_array(node_id)::text,
        content_hash, ${f.executionStatus}, ${f.failureReason}, ${m.exitCode ?? null}::integer, runner,
        COALESCE(claimed_at, created_at), ${f.now}::bigint,
        COALESCE(${m.durationMs ?? null}::bigint, ${f.now}::bigint - COALESCE(claimed_at, created_at)),
        ${m.tokensIn ?? null}::integer, ${m.tokensOut ?? null}::integer, ${m.reportPath ?? null}::text,
        id, ${m.errorMessage ?? null}::text
        FROM done
      RETURNING job_id AS "jobId", extension_id AS "actionId", extension_version AS "actionVersion",
        node_ids_json, content_hash AS "contentHash", started_at AS "startedAt", id AS "executionId"`.execute(
      db,
    );
    const row = rows.rows[0] as (FinishedJob & { node_ids_json?: string }) | undefined;
    if (!row) return undefined;
    const { node_ids_json, ...rest } = row;
    return {
      ...rest,
      nodeId: (JSON.parse(node_ids_json ?? "[]") as string[])[0] ?? "",
      startedAt: Number(rest.startedAt),
    };
  }
  let update = db
    .updateTable("state_jobs")
    .set({ status: f.status, failure_reason: f.failureReason, finished_at: f.now })
    .where("id", "=", f.id)
    .where("status", "in", [...f.from]);
  if (f.nonce !== undefined) update = update.where("nonce", "=", f.nonce);
  const row = await update.returningAll().executeTakeFirst();
  if (!row) return undefined;
  const startedAt = Number(row.claimed_at ?? row.created_at);
  await db
    .insertInto("state_executions")
    .values({
      id: f.executionId,
      kind: "action",
      extension_id: row.action_id,
      extension_version: row.action_version,
      node_ids_json: JSON.stringify([row.node_id]),
      content_hash: row.content_hash,
      status: f.executionStatus,
      failure_reason: f.failureReason,
      exit_code: m.exitCode ?? null,
      runner: row.runner,
      started_at: startedAt,
      finished_at: f.now,
      duration_ms: m.durationMs ?? f.now - startedAt,
      tokens_in: m.tokensIn ?? null,
      tokens_out: m.tokensOut ?? null,
      report_path: m.reportPath ?? null,
      job_id: row.id,
      error_message: m.errorMessage ?? null,
    })
    .execute();
  return {
    jobId: row.id,
    actionId: row.action_id,
    actionVersion: row.action_version,
    nodeId: row.node_id,
    contentHash: row.content_hash,
    startedAt,
    executionId: f.executionId,
  };
}

import { type Selectable, sql } from "kysely";
import type { StateJobsTable } from "../../store/index.js";
import type { RunnerKind } from "../types.js";
import type { JobsDb } from "./db.js";

/** What a claim may be limited to (`keel job claim --filter <action>`). */
export interface ClaimFilter {
  /** Only jobs of these actions. */
  readonly actions?: readonly string[];
  /** Only these jobs (`job submit --run` runs what it queued). */
  readonly ids?: readonly string[];
}

/** A claimed row, nonce included. */
export type ClaimedRow = Selectable<StateJobsTable>;

/** One claim's parameters: up to `limit` jobs for one runner and filter. */
export interface ClaimJobs {
  readonly now: number;
  readonly runner: RunnerKind;
  readonly limit: number;
  readonly filter?: ClaimFilter;
  /**
   * Actions this claimer runs in-process: their jobs are claimed with runner `in-process` (which
   * the reap and the resume read), every other job with `runner`.
   */
  readonly inProcessActions?: readonly string[];
}

/**
 * The Postgres claim (dispatch-lifecycle.md's atomic claim), as two CTEs to put in a statement:
 * `next` picks the next `limit` queued jobs by priority then age with `FOR UPDATE SKIP LOCKED`
 * (concurrent claimers skip each other's rows instead of queueing behind them), `claimed` marks
 * them running. `values` receives the parameters (`$1` is now, `$2` the runner, `$3` the limit
 * must already be in place). `next` is MATERIALIZED: as a plain subquery the planner may rescan
 * it per row it updates, and every rescan skips the rows already taken, so LIMIT stops limiting.
 * `status = 'queued'` is a literal so the pick uses the partial claim index. `claimed` needs no
 * status guard of its own: `next` holds the row locks, taken after re-checking each row is still
 * queued; a guard there only tempted the planner (before statistics exist) to read every queued
 * job through the claim index and hash-join them against the few picked.
 */
export function postgresClaimCtes(
  filter: ClaimFilter | undefined,
  values: unknown[],
  inProcessActions: readonly string[] = [],
): string {
  let runner = "$2::text";
  if (inProcessActions.length > 0) {
    values.push(inProcessActions);
    runner = `CASE WHEN j.action_id = ANY($${values.length}::text[]) THEN 'in-process' ELSE $2::text END`;
  }
  let where = "";
  if (filter?.actions !== undefined && filter.actions.length > 0) {
    values.push(filter.actions);
    where += ` AND action_id = ANY($${values.length}::text[])`;
  }
  if (filter?.ids !== undefined) {
    values.push(filter.ids);
    where += ` AND id = ANY($${values.length}::text[])`;
  }
  return `next AS MATERIALIZED (
    SELECT id FROM state_jobs
     WHERE status = 'queued'${where}
     ORDER BY priority DESC, created_at, id
     LIMIT $3::integer
     FOR UPDATE SKIP LOCKED
  ), claimed AS (
    UPDATE state_jobs AS j
       SET status = 'running', claimed_at = $1::bigint, runner = ${runner},
           expires_at = $1::bigint + j.ttl_seconds::bigint * 1000
      FROM next
     WHERE j.id = next.id
    RETURNING j.*
  )`;
}

/**
 * SQLite's claim: one UPDATE whose subquery picks the next `limit` queued jobs and whose outer
 * guard makes a lost race a no-op (the single writer serialises claimers). Without table
 * statistics the planner would read the queued jobs through ix_state_jobs_status and sort them
 * all on every claim; INDEXED BY names the partial claim index, whose order is the claim order,
 * so a claim reads `limit` entries. The outer guard is `+status` so the rows are found by id,
 * not by scanning every queued job and testing each against the picked ids.
 */
export async function claimOnSqlite(db: JobsDb, c: ClaimJobs): Promise<ClaimedRow[]> {
  const actions = c.filter?.actions ?? [];
  const ids = c.filter?.ids;
  const inProcess = c.inProcessActions ?? [];
  const runner =
    inProcess.length > 0
      ? sql`CASE WHEN action_id IN (${sql.join(inProcess)}) THEN 'in-process' ELSE ${c.runner} END`
      : sql`${c.runner}`;
  const result = await sql<ClaimedRow>`
    UPDATE state_jobs
       SET status = 'running', claimed_at = ${c.now}, runner = ${runner},
           expires_at = ${c.now} + ttl_seconds * 1000
     WHERE id IN (
       SELECT id FROM state_jobs INDEXED BY ix_state_jobs_priority_created_at_id
        WHERE status = 'queued'
          ${actions.length > 0 ? sql`AND action_id IN (${sql.join(actions)})` : sql``}
          ${ids !== undefined ? sql`AND id IN (${sql.join(ids.length > 0 ? ids : [""])})` : sql``}
        ORDER BY priority DESC, created_at ASC, id ASC
        LIMIT ${c.limit}
     )
       AND +status = 'queued'
    RETURNING *`.execute(db);
  return result.rows;
}

/** Claimed rows in claim order: priority (highest first), then age, then id. */
export function inClaimOrder(rows: ClaimedRow[]): ClaimedRow[] {
  return rows.sort(
    (a, b) =>
      Number(b.priority) - Number(a.priority) ||
      Number(a.created_at) - Number(b.created_at) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

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

/**
 * The atomic claim (dispatch-lifecycle.md): one UPDATE whose subquery picks the next queued job
 * by priority then age and whose outer `status = 'queued'` guard makes a lost race a no-op. On
 * Postgres the subquery takes `FOR UPDATE SKIP LOCKED`, so concurrent claimers skip each other's
 * rows instead of queueing behind them. Resolves the claimed row (nonce included) or undefined.
 */
export function claimJob(
  db: JobsDb,
  options: { now: number; runner: RunnerKind; skipLocked: boolean; filter?: ClaimFilter },
) {
  const actions = options.filter?.actions;
  const ids = options.filter?.ids;
  if (!options.skipLocked) return claimOnSqlite(db, options);
  return db
    .updateTable("state_jobs")
    .set({
      status: "running",
      claimed_at: options.now,
      runner: options.runner,
      expires_at: sql<number>`CAST(${options.now} AS BIGINT) + CAST(ttl_seconds AS BIGINT) * 1000`,
    })
    .where("id", "=", (eb) =>
      eb
        .selectFrom("state_jobs")
        .select("id")
        // A literal, not a bound value, so the planner can match the partial claim index.
        .where(sql<boolean>`status = 'queued'`)
        .$if(actions !== undefined && actions.length > 0, (q) =>
          q.where("action_id", "in", actions ?? []),
        )
        .$if(ids !== undefined, (q) => q.where("id", "in", ids && ids.length > 0 ? ids : [""]))
        .orderBy("priority", "desc")
        .orderBy("created_at", "asc")
        .orderBy("id", "asc")
        .limit(1)
        .$if(options.skipLocked, (q) => q.forUpdate().skipLocked()),
    )
    .where("status", "=", "queued")
    .returningAll()
    .executeTakeFirst();
}

/**
 * SQLite's form of the same statement. Without table statistics its planner would read the
 * queued jobs through ix_state_jobs_status and sort them all on every claim; INDEXED BY names
 * the partial claim index, whose order is the claim order, so a claim reads one index entry.
 */
async function claimOnSqlite(
  db: JobsDb,
  options: { now: number; runner: RunnerKind; filter?: ClaimFilter },
) {
  const actions = options.filter?.actions ?? [];
  const ids = options.filter?.ids;
  const result = await sql<Selectable<StateJobsTable>>`
    UPDATE state_jobs
       SET status = 'running', claimed_at = ${options.now}, runner = ${options.runner},
           expires_at = ${options.now} + ttl_seconds * 1000
     WHERE id = (
       SELECT id FROM state_jobs INDEXED BY ix_state_jobs_priority_created_at_id
        WHERE status = 'queued'
          ${actions.length > 0 ? sql`AND action_id IN (${sql.join(actions)})` : sql``}
          ${ids !== undefined ? sql`AND id IN (${sql.join(ids.length > 0 ? ids : [""])})` : sql``}
        ORDER BY priority DESC, created_at ASC, id ASC
        LIMIT 1
     )
       AND status = 'queued'
    RETURNING *`.execute(db);
  return result.rows[0];
}

import { sql } from "kysely";
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
        .where("status", "=", "queued")
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

import { sql } from "kysely";
import type { ClaimedRow, ClaimFilter } from "./claim-jobs.js";
import type { JobsDb } from "./db.js";

/** One take-over: the clock, the fresh nonce and the resume budget. */
export interface ResumeJob {
  readonly now: number;
  /** The job's new nonce: the dead worker's is void from here on (its late record gets exit 4). */
  readonly nonce: string;
  readonly maxResumes: number;
  readonly filter?: ClaimFilter;
}

/**
 * Takes over one expired in-process job (`status = 'running'`, `runner = 'in-process'`,
 * `expires_at < now`, take-overs left): the job stays `running` — no transition of the
 * lifecycle, only a new claim of a running job — with `claimed_at = now`, `expires_at = now +
 * ttl`, a fresh nonce and `resume_count + 1`. One statement; on Postgres the pick takes `FOR
 * UPDATE SKIP LOCKED` and re-checks the row under its lock, so two workers never take the same
 * job and a record or reap that lands first leaves nothing to take. Resolves undefined when
 * nothing is left to resume.
 */
export async function resumeExpiredRow(
  db: JobsDb,
  dialect: "sqlite" | "postgres",
  r: ResumeJob,
): Promise<ClaimedRow | undefined> {
  const actions = r.filter?.actions ?? [];
  const ids = r.filter?.ids;
  // Casts, for Postgres: a bare parameter beside an integer column is taken as an integer.
  const now = dialect === "postgres" ? sql`${r.now}::bigint` : sql`${r.now}`;
  const where = sql`status = 'running' AND runner = 'in-process' AND expires_at < ${now}
        AND resume_count < ${r.maxResumes}
        ${actions.length > 0 ? sql`AND action_id IN (${sql.join(actions)})` : sql``}
        ${ids !== undefined ? sql`AND id IN (${sql.join(ids.length > 0 ? ids : [""])})` : sql``}`;
  const set = sql`claimed_at = ${now}, expires_at = ${now} + ttl_seconds * 1000,
        nonce = ${r.nonce}, resume_count = resume_count + 1`;
  const result =
    dialect === "postgres"
      ? await sql<ClaimedRow>`
        WITH next AS MATERIALIZED (
          SELECT id FROM state_jobs WHERE ${where}
           ORDER BY expires_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
        )
        UPDATE state_jobs AS j SET ${set} FROM next WHERE j.id = next.id RETURNING j.*`.execute(db)
      : await sql<ClaimedRow>`
        UPDATE state_jobs SET ${set}
         WHERE id = (SELECT id FROM state_jobs WHERE ${where} ORDER BY expires_at, id LIMIT 1)
           AND ${where}
        RETURNING *`.execute(db);
  return result.rows[0];
}

import type { Store } from "../../store/index.js";
import type { ClaimedRow, ClaimJobs } from "./claim-jobs.js";
import { claimOnSqlite, inClaimOrder, postgresClaimCtes } from "./claim-jobs.js";
import type { JobsDb } from "./db.js";
import { type FinishedJob, type FinishJob, finishJob } from "./finish-job.js";
import { queryPrepared } from "./pg-prepared.js";

/** A record's transition: from `running`, guarded by the nonce. */
export type RecordTransition = Omit<FinishJob, "from" | "nonce"> & { readonly nonce: string };

/** One step of the queue: records to write and jobs to claim, in one commit. */
export interface QueueStep {
  readonly records: readonly RecordTransition[];
  /** Omitted or `limit: 0`: claim nothing. */
  readonly claim?: ClaimJobs;
}

/** What a step did: each record's result in its place (undefined: refused), the claimed rows. */
export interface QueueStepResult {
  readonly recorded: (FinishedJob | undefined)[];
  readonly claimed: ClaimedRow[];
}

const RECORD_CTES = `input AS (
    SELECT * FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                         $10::integer[], $11::bigint[], $12::integer[], $13::integer[],
                         $14::text[], $15::text[], $16::bigint[])
      AS i(id, execution_id, status, failure_reason, execution_status, nonce, exit_code,
           duration_ms, tokens_in, tokens_out, report_path, error_message, now)
  ), done AS (
    UPDATE state_jobs AS j
       SET status = i.status, failure_reason = i.failure_reason, finished_at = i.now
      FROM input AS i
     WHERE j.id = i.id AND j.status = 'running' AND j.nonce = i.nonce
    RETURNING j.id, j.action_id, j.action_version, j.node_id, j.content_hash, j.runner,
              COALESCE(j.claimed_at, j.created_at) AS started_at, i.execution_id,
              i.execution_status, i.failure_reason, i.exit_code, i.duration_ms, i.tokens_in,
              i.tokens_out, i.report_path, i.error_message, i.now
  ), recorded AS (
    INSERT INTO state_executions (id, kind, extension_id, extension_version, node_ids_json,
      content_hash, status, failure_reason, exit_code, runner, started_at, finished_at,
      duration_ms, tokens_in, tokens_out, report_path, job_id, error_message)
    SELECT execution_id, 'action', action_id, action_version, json_build_array(node_id)::text,
      content_hash, execution_status, failure_reason, exit_code, runner, started_at, now,
      COALESCE(duration_ms, now - started_at), tokens_in, tokens_out, report_path, id,
      error_message
      FROM done
    RETURNING job_id AS "jobId", extension_id AS "actionId", extension_version AS "actionVersion",
      node_ids_json, content_hash AS "contentHash", started_at AS "startedAt", id AS "executionId"
  )`;

/**
 * Records jobs and claims the next ones in one commit — a group commit. Postgres: one statement
 * (every guarded UPDATE to a terminal state feeding its execution row's INSERT, through arrays,
 * beside the SKIP LOCKED claim); SQLite: one `BEGIN IMMEDIATE` transaction. Each record is still
 * guarded by its own id, state and nonce: a refused one resolves undefined in its place and
 * nothing was written for it. Records and claims touch disjoint rows (running vs queued).
 */
export async function queueStep(store: Store, step: QueueStep): Promise<QueueStepResult> {
  const claim = step.claim;
  if (store.native.dialect === "sqlite") {
    return store.transaction(async (tx: JobsDb) => {
      const recorded: (FinishedJob | undefined)[] = [];
      for (const t of step.records) {
        recorded.push(await finishJob(tx, "sqlite", { ...t, from: ["running"] }));
      }
      const claimed = claim && claim.limit > 0 ? await claimOnSqlite(tx, claim) : [];
      return { recorded, claimed: inClaimOrder(claimed) };
    });
  }
  const records = step.records;
  const column = <T>(pick: (t: RecordTransition) => T) => records.map(pick);
  const values: unknown[] = [
    claim?.now ?? 0,
    claim?.runner ?? "skill",
    claim?.limit ?? 0,
    column((t) => t.id),
    column((t) => t.executionId),
    column((t) => t.status),
    column((t) => t.failureReason),
    column((t) => t.executionStatus),
    column((t) => t.nonce),
    column((t) => t.metrics.exitCode ?? null),
    column((t) => t.metrics.durationMs ?? null),
    column((t) => t.metrics.tokensIn ?? null),
    column((t) => t.metrics.tokensOut ?? null),
    column((t) => t.metrics.reportPath ?? null),
    column((t) => t.metrics.errorMessage ?? null),
    column((t) => t.now),
  ];
  const text = `WITH ${RECORD_CTES}, ${postgresClaimCtes(claim?.filter, values, claim?.inProcessActions)}
SELECT (SELECT COALESCE(json_agg(recorded), '[]') FROM recorded) AS recorded,
       (SELECT COALESCE(json_agg(claimed), '[]') FROM claimed) AS claimed`;
  const [row] = await queryPrepared<{
    recorded: (FinishedJob & { node_ids_json: string })[];
    claimed: ClaimedRow[];
  }>(store.native.pool, text, values);
  // Keyed by execution id: two records of one job in a step update it once, and only the one
  // whose execution row was written gets a result.
  const byExecution = new Map<string, FinishedJob>();
  for (const { node_ids_json, ...done } of row?.recorded ?? []) {
    byExecution.set(done.executionId, {
      ...done,
      nodeId: (JSON.parse(node_ids_json) as string[])[0] ?? "",
      startedAt: Number(done.startedAt),
    });
  }
  return {
    recorded: records.map((t) => byExecution.get(t.executionId)),
    claimed: inClaimOrder(row?.claimed ?? []),
  };
}

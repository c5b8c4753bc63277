import { newExecutionId } from "../ids.js";
import type { JobsDb } from "./db.js";
import { finishJob } from "./finish-job.js";

/** What a reap did: the jobs it failed, and the expired jobs it left for a worker to resume. */
export interface ReapResult {
  readonly reaped: string[];
  /** Expired in-process jobs with take-overs left (`resume_count < maxResumes`): not reaped. */
  readonly resumable: number;
}

/**
 * The reap (dispatch-lifecycle.md, "Reap procedure"): every running job whose `expires_at` has
 * passed fails as `abandoned`, each with its execution record — except an in-process job that
 * still has take-overs left (`runner = 'in-process' AND resume_count < maxResumes`): its run is
 * durable, so the next worker resumes it from its checkpoint instead (`resumeExpiredJob`). The
 * expired ids are read first and each is finished by the guarded transition, so a record that
 * lands meanwhile wins cleanly (the reap then skips that job). Run it inside a transaction on
 * SQLite.
 */
export async function reapJobs(
  db: JobsDb,
  dialect: "sqlite" | "postgres",
  now: number,
  maxResumes: number,
): Promise<ReapResult> {
  const expired = await db
    .selectFrom("state_jobs")
    .select(["id", "runner", "resume_count"])
    .where("status", "=", "running")
    .where("expires_at", "<", now)
    .orderBy("expires_at")
    .execute();
  const reaped: string[] = [];
  let resumable = 0;
  for (const { id, runner, resume_count } of expired) {
    if (runner === "in-process" && Number(resume_count) < maxResumes) {
      resumable++;
      continue;
    }
    const done = await finishJob(db, dialect, {
      id,
      executionId: newExecutionId(now),
      from: ["running"],
      status: "failed",
      failureReason: "abandoned",
      executionStatus: "failed",
      now,
      metrics: {
        errorMessage:
          runner === "in-process"
            ? `TTL expired before the job was recorded, after ${resume_count} resume(s) (jobs.max_resumes)`
            : "TTL expired before the job was recorded",
      },
    });
    if (done) reaped.push(id);
  }
  return { reaped, resumable };
}

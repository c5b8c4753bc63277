import { newExecutionId } from "../ids.js";
import type { JobsDb } from "./db.js";
import { finishJob } from "./finish-job.js";

/**
 * The reap (dispatch-lifecycle.md, "Reap procedure"): every running job whose `expires_at` has
 * passed fails as `abandoned`, each with its execution record. The expired ids are read first and
 * each is finished by the guarded transition, so a record that lands meanwhile wins cleanly (the
 * reap then skips that job). Resolves the reaped ids. Run it inside a transaction on SQLite.
 */
export async function reapJobs(
  db: JobsDb,
  dialect: "sqlite" | "postgres",
  now: number,
): Promise<string[]> {
  const expired = await db
    .selectFrom("state_jobs")
    .select("id")
    .where("status", "=", "running")
    .where("expires_at", "<", now)
    .orderBy("expires_at")
    .execute();
  const reaped: string[] = [];
  for (const { id } of expired) {
    const done = await finishJob(db, dialect, {
      id,
      executionId: newExecutionId(now),
      from: ["running"],
      status: "failed",
      failureReason: "abandoned",
      executionStatus: "failed",
      now,
      metrics: { errorMessage: "TTL expired before the job was recorded" },
    });
    if (done) reaped.push(id);
  }
  return reaped;
}

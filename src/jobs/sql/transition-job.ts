import { assertTransition } from "../state-machine.js";
import type { JobStatus } from "../types.js";
import type { JobsDb } from "./db.js";

/**
 * The bare state change behind every operation: refuses (JOB_INVALID_TRANSITION, nothing
 * written) a pair the lifecycle does not allow, then updates the row only while it is still in
 * `from`. Resolves whether the row moved. The operations (claim, record, reap, cancel) are
 * specialisations of it that also set their columns and write the execution record.
 */
export async function transitionJob(
  db: JobsDb,
  id: string,
  from: JobStatus,
  to: JobStatus,
): Promise<boolean> {
  assertTransition(id, from, to);
  const moved = await db
    .updateTable("state_jobs")
    .set({ status: to })
    .where("id", "=", id)
    .where("status", "=", from)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

import type { JobsDb } from "./db.js";

/**
 * Retention (dispatch-lifecycle.md, "Retention and GC"): deletes terminal jobs finished before
 * the cutoff of their state (null: keep forever). Execution records stay: they are the history.
 * Resolves the deleted rows' ids and file paths so the caller can remove the files.
 */
export async function pruneJobs(
  db: JobsDb,
  cutoffs: { completedBefore: number | null; failedBefore: number | null },
): Promise<{ id: string; file_path: string | null }[]> {
  const deleted: { id: string; file_path: string | null }[] = [];
  for (const [status, before] of [
    ["completed", cutoffs.completedBefore],
    ["failed", cutoffs.failedBefore],
  ] as const) {
    if (before === null) continue;
    deleted.push(
      ...(await db
        .deleteFrom("state_jobs")
        .where("status", "=", status)
        .where("finished_at", "<", before)
        .returning(["id", "file_path"])
        .execute()),
    );
  }
  return deleted;
}

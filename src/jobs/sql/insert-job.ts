import type { JobsDb } from "./db.js";

/** The columns a new queued job is inserted with. */
export interface NewJobRow {
  id: string;
  action_id: string;
  action_version: string;
  node_id: string;
  content_hash: string;
  nonce: string;
  priority: number;
  ttl_seconds: number;
  file_path: string | null;
  created_at: number;
  submitted_by: string | null;
  is_forced: number;
}

/**
 * Inserts a queued job; resolves false when a unique index refused it (its id was taken, or an
 * unforced live job has the same duplicate key) instead of throwing, so the caller can tell the
 * two apart and retry or report the duplicate.
 */
export async function insertJob(db: JobsDb, row: NewJobRow): Promise<boolean> {
  const inserted = await db
    .insertInto("state_jobs")
    .values({ ...row, status: "queued" })
    .onConflict((oc) => oc.doNothing())
    .returning("id")
    .executeTakeFirst();
  return inserted !== undefined;
}

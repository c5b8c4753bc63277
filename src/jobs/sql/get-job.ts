import type { JobsDb } from "./db.js";

/** One job row by id (nonce included), or undefined. */
export function getJobRow(db: JobsDb, id: string) {
  return db.selectFrom("state_jobs").selectAll().where("id", "=", id).executeTakeFirst();
}

/** The live (queued or running) unforced-or-forced job with this duplicate key, if any. */
export function findLiveDuplicate(
  db: JobsDb,
  key: { actionId: string; actionVersion: string; nodeId: string; contentHash: string },
) {
  return db
    .selectFrom("state_jobs")
    .select(["id", "status"])
    .where("action_id", "=", key.actionId)
    .where("action_version", "=", key.actionVersion)
    .where("node_id", "=", key.nodeId)
    .where("content_hash", "=", key.contentHash)
    .where("status", "in", ["queued", "running"])
    .orderBy("created_at")
    .executeTakeFirst();
}

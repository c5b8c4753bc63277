import type BetterSqlite3 from "better-sqlite3";

/**
 * The SQLite floor: the same row writes a claim → record makes (the job's UPDATE to running in
 * one commit; its UPDATE to completed and the execution INSERT in a second), as bare prepared
 * better-sqlite3 statements on the store's own connection. Resolves jobs/s.
 */
export function sqliteFloor(database: BetterSqlite3.Database, ids: readonly string[]): number {
  const claim = database.prepare(
    "UPDATE state_jobs SET status = 'running', claimed_at = ?, runner = 'in-process', expires_at = ? + ttl_seconds * 1000 WHERE id = ? AND status = 'queued'",
  );
  const complete = database.prepare(
    "UPDATE state_jobs SET status = 'completed', finished_at = ? WHERE id = ? AND status = 'running'",
  );
  const execution = database.prepare(
    "INSERT INTO state_executions (id, kind, extension_id, extension_version, node_ids_json, content_hash, status, runner, started_at, finished_at, duration_ms, job_id) VALUES (?, 'action', 'noop', '1.0.0', '[]', NULL, 'completed', 'in-process', ?, ?, 0, ?)",
  );
  const record = database.transaction((id: string, now: number) => {
    complete.run(now, id);
    execution.run(`floor-${id}`, now, now, id);
  });
  const start = performance.now();
  for (const id of ids) {
    const now = Date.now();
    claim.run(now, now, id);
    record.immediate(id, now);
  }
  return ids.length / ((performance.now() - start) / 1000);
}

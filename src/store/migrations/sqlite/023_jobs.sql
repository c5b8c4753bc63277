-- Jobs (dispatch lifecycle). Seed 004 makes ix_state_jobs_action_node_hash a unique partial index
-- over live jobs, yet `job submit --force` must queue a second live job for the same
-- (action, version, node, content hash). The two cannot both hold, so a forced job is marked
-- (is_forced = 1) and the unique index covers only unforced live jobs: an ordinary submit is
-- still refused atomically by the index, a forced one never is.
DROP INDEX ix_state_jobs_action_node_hash;
ALTER TABLE state_jobs ADD COLUMN is_forced INTEGER NOT NULL DEFAULT 0 CONSTRAINT ck_state_jobs_is_forced CHECK (is_forced IN (0, 1));
CREATE UNIQUE INDEX ix_state_jobs_action_node_hash ON state_jobs (action_id, action_version, node_id, content_hash)
  WHERE status IN ('queued', 'running') AND is_forced = 0;
-- The claim's scan: queued jobs in claim order, so a claim reads one index entry, not the queue.
CREATE INDEX ix_state_jobs_priority_created_at_id ON state_jobs (priority DESC, created_at, id)
  WHERE status = 'queued';
-- The reap's scan: running jobs by expiry.
CREATE INDEX ix_state_jobs_expires_at ON state_jobs (expires_at)
  WHERE status = 'running';
-- `keel record --status failed --error "…"` stores its text verbatim in the execution record
-- (cli-contract.md, "Record"); the seed's state_executions has no column for it.
ALTER TABLE state_executions ADD COLUMN error_message TEXT;

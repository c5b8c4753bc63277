-- Thread listing from one index (issue 21): the page of `listThreads` (latest activity first)
-- reads every column it returns from the index, never the table. It replaces the index on
-- (updated_at, id), its prefix. Postgres names it the same (63-character identifiers).
DROP INDEX ix_state_threads_updated_at_id;
CREATE INDEX ix_state_threads_updated_at_id_covering ON state_threads (updated_at, id, lease_owner, lease_expires_at, created_at);

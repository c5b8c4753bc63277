-- The tool-call ledger's write path (issue 7, "How fast"): every index is written on every
-- commit, and a commit costs about one WAL frame per b-tree it touches, so each index that no
-- query needs is dropped, and the one that only finds calls in doubt only holds those.

-- Searches (`keel audit search`) read newest first along `seq` and filter; SQLite never used the
-- type index for a prefix (`LIKE` is case-insensitive, the column's collation is binary), and
-- neither index served `keel audit <trace_id>`, which has its own (trace_id, seq).
DROP INDEX ix_state_audit_events_type;
DROP INDEX ix_state_audit_events_recorded_at;

-- Artifacts are read by id only.
DROP INDEX ix_state_artifacts_content_hash;

-- A trace's calls are found through its audit events (refs.tool_call_id) or its task.
DROP INDEX ix_state_tool_calls_trace_id;

-- Only calls in doubt are looked up by status (recovery at start, operators' lists): a call
-- leaves the index when its outcome is recorded, so the index stays small and hot.
DROP INDEX ix_state_tool_calls_status;
CREATE INDEX ix_state_tool_calls_status ON state_tool_calls (status)
  WHERE status IN ('attempted', 'unknown');

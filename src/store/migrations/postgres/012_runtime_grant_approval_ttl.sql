-- Governed runs (issue 7): how long the approvals of a run last, from its routing configuration's
-- `approval_ttl_seconds` (null: the runtime's default, one hour).
ALTER TABLE state_run_grants ADD COLUMN approval_ttl_seconds INTEGER NULL;

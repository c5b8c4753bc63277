-- Who owns a tool call in flight (issue 7): the execution that recorded `attempted` (its ledger's
-- `host:pid:random`) and until when its lease lasts; the owner renews it while the tool runs.
-- Recovery turns an `attempted` call into `unknown` only once its lease has lapsed (expired, or
-- its owner's process is gone), so a live worker's call is never taken for a dead one. Null on
-- calls recorded before this migration (treated as lapsed).
ALTER TABLE state_tool_calls ADD COLUMN lease_owner TEXT NULL;
ALTER TABLE state_tool_calls ADD COLUMN lease_expires_at BIGINT NULL;

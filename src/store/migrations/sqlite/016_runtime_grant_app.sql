-- Governed runs (issue 7): the application module a run can be continued and replayed with (a
-- file URL or package name exporting `keelApp`), so that an operator's `keel approvals approve`,
-- `keel runs resume` and `keel runs replay` need not be the process that started it. Null: only
-- that process can (runs started without `app`, or before this migration).
ALTER TABLE state_run_grants ADD COLUMN app_module TEXT NULL;

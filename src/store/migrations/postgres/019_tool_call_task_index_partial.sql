-- The tool-call ledger's write path (issue 7): a call made outside a run (no task) need not be
-- written to the task index. Every query that reads the index asks for `task_id = ?` (a run's
-- calls: replay, scoped recovery), which implies `task_id IS NOT NULL`, so the index serves it
-- as before; a call without a task now commits one page fewer per status change.
DROP INDEX ix_state_tool_calls_task_id;
CREATE INDEX ix_state_tool_calls_task_id ON state_tool_calls (task_id) WHERE task_id IS NOT NULL;

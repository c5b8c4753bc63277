-- Governed runs (issue 7, seed 003): the steps of a run (the seed's Step; the run itself is the
-- seed's Task, `state_runs`), what each run was granted when it started, and the link from an
-- approval to the gated call that waits for it. Zone `state_`; naming per seed 004.

-- One row per node execution of a governed run. `task_key` is the graph engine's deterministic
-- task id, so a node re-run after an interrupt or a crash finds its step again; `visit` counts the
-- executions of the same node in the run (1, 2, …), which is how idempotency keys and replays
-- address a step independently of checkpoint ids. `input_json` is immutable (trigger below).
CREATE TABLE state_steps (
  id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  task_key TEXT NOT NULL,
  name TEXT NOT NULL,
  visit INTEGER NOT NULL,
  status TEXT NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 1,
  retry_policy_json TEXT NOT NULL,
  input_json TEXT NOT NULL,
  checkpoint_json TEXT NOT NULL DEFAULT '{}',
  output_json TEXT NULL,
  idempotency_key TEXT NULL,
  error_json TEXT NULL,
  next_wake_at INTEGER NULL,
  started_at INTEGER NULL,
  ended_at INTEGER NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  CONSTRAINT pk_state_steps PRIMARY KEY (id),
  CONSTRAINT ck_state_steps_status CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'paused'))
);
CREATE UNIQUE INDEX ix_state_steps_run_id_task_key ON state_steps (run_id, task_key);
CREATE INDEX ix_state_steps_run_id_name_visit ON state_steps (run_id, name, visit);

CREATE TRIGGER tr_state_steps_input_immutable BEFORE UPDATE OF input_json ON state_steps
WHEN NEW.input_json IS NOT OLD.input_json
BEGIN
  SELECT RAISE(ABORT, 'state_steps.input_json is immutable: a step''s input never changes after creation');
END;

-- What a governed run was granted when it started: the autonomy level (snapshotted, never
-- changes), the risk its routing gave, the capabilities it holds, its tool profile, the
-- routing decision that started it and the graph input it started with (for replays). `id` is
-- the run's id (`state_runs.id`).
CREATE TABLE state_run_grants (
  id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  event_id TEXT NULL,
  autonomy_level TEXT NOT NULL,
  risk_level TEXT NOT NULL,
  tool_profile TEXT NOT NULL,
  capabilities_json TEXT NOT NULL DEFAULT '[]',
  routing_json TEXT NULL,
  handler TEXT NULL,
  input_json TEXT NOT NULL DEFAULT 'null',
  created_at INTEGER NOT NULL,
  CONSTRAINT pk_state_run_grants PRIMARY KEY (id),
  CONSTRAINT ck_state_run_grants_autonomy_level CHECK (autonomy_level IN ('a0', 'a1', 'a2', 'a3', 'a4')),
  CONSTRAINT ck_state_run_grants_risk_level CHECK (risk_level IN ('low', 'medium', 'high', 'critical')),
  CONSTRAINT ck_state_run_grants_tool_profile CHECK (tool_profile IN ('default', 'cleared'))
);
CREATE INDEX ix_state_run_grants_trace_id ON state_run_grants (trace_id);

-- The gated call an approval stands for (the call's idempotency key), so a resumed step finds
-- its approval again instead of asking twice.
ALTER TABLE state_approvals ADD COLUMN gate_key TEXT NULL;
CREATE INDEX ix_state_approvals_task_id_gate_key ON state_approvals (task_id, gate_key);

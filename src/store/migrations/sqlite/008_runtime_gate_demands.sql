-- Governed runs (issue 7): what routing's rules demanded of the gate. A rule's `gate` demand
-- (`{ ruleId, decision, reason }`, a JSON list) is kept with the run's grant and applied to every
-- gated call of the run at the run's autonomy, so a tightening decided at routing reaches the
-- tool call (rules tighten the gate, never loosen it). Runs started before this migration had
-- none recorded.
ALTER TABLE state_run_grants ADD COLUMN gate_demands_json TEXT NOT NULL DEFAULT '[]';

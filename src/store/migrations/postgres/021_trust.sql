-- Governed IR runs (issue 12): an interrupt of an IR document is an Approval, and the person who
-- decides it may give the answer the run continues with (a state update, JSON text). Null for
-- approvals of gated tool calls, whose decision is the whole answer.
ALTER TABLE state_approvals ADD COLUMN answer_json TEXT NULL;

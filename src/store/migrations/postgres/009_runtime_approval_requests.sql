-- Approvals are bound to the request they allow (issue 7): the gated call's `request_hash` (the
-- ledger's sha256 of the redacted request), so that a node that asks for something else after
-- the approval (another amount, another recipient) is not covered by it. Null for approvals
-- made by hand or before this migration.
ALTER TABLE state_approvals ADD COLUMN request_hash TEXT NULL;

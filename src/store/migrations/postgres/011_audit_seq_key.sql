-- The audit log keyed by its sequence number (issue 7), as on SQLite, where `seq` became the
-- table's rowid so that an append writes one b-tree less: the primary key moves from `id` to
-- `seq` (the unique index `seq` already had becomes the key's), and `id` stays unique. The same
-- indexes as before, so appends cost the same here.
ALTER TABLE state_audit_events ADD CONSTRAINT uq_state_audit_events_id UNIQUE (id);
ALTER TABLE state_audit_events DROP CONSTRAINT pk_state_audit_events;
ALTER TABLE state_audit_events
  ADD CONSTRAINT pk_state_audit_events PRIMARY KEY USING INDEX ix_state_audit_events_seq;

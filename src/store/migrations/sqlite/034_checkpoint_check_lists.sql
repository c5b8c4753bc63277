-- The checkpoint tables' enum CHECKs as chains of equalities (issue 21). SQLite evaluates
-- `x IN ('a', 'b', 'c')` with more than two constants by building a temporary b-tree of the list
-- each time the statement runs, so every step's checkpoint row (and every blob row) paid for one:
-- ~1.5 µs of a ~13 µs bare commit (docs/durability.md). `(x = 'a' OR x = 'b' OR …)` admits
-- exactly the same values and is evaluated in place. SQLite cannot change a CHECK in place, so
-- both tables are rebuilt with their rows, keys, foreign keys and indexes as before; nothing
-- references them. Postgres evaluates such lists in place already (its counterpart changes nothing).

CREATE TABLE state_checkpoints_rebuilt (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  parent_checkpoint_id TEXT NULL,
  format_version INTEGER NOT NULL,
  step INTEGER NOT NULL,
  source TEXT NOT NULL,
  checkpoint_json TEXT NOT NULL,
  channel_seqs_json TEXT NOT NULL,
  metadata_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  is_below_latest INTEGER NOT NULL DEFAULT 0,
  CONSTRAINT pk_state_checkpoints PRIMARY KEY (thread_id, checkpoint_ns, id),
  CONSTRAINT fk_state_checkpoints_thread_id FOREIGN KEY (thread_id)
    REFERENCES state_threads (id) ON DELETE CASCADE,
  CONSTRAINT ck_state_checkpoints_source
    CHECK (source = 'input' OR source = 'loop' OR source = 'update' OR source = 'fork'),
  CONSTRAINT ck_state_checkpoints_is_below_latest CHECK (is_below_latest IN (0, 1))
) WITHOUT ROWID;
INSERT INTO state_checkpoints_rebuilt (thread_id, checkpoint_ns, id, seq, parent_checkpoint_id,
  format_version, step, source, checkpoint_json, channel_seqs_json, metadata_json, created_at,
  is_below_latest)
SELECT thread_id, checkpoint_ns, id, seq, parent_checkpoint_id, format_version, step, source,
  checkpoint_json, channel_seqs_json, metadata_json, created_at, is_below_latest
FROM state_checkpoints;
DROP TABLE state_checkpoints;
ALTER TABLE state_checkpoints_rebuilt RENAME TO state_checkpoints;
CREATE INDEX ix_state_checkpoints_thread_id_checkpoint_ns_seq
  ON state_checkpoints (thread_id, checkpoint_ns, seq) WHERE is_below_latest = 1;

CREATE TABLE state_checkpoint_blobs_rebuilt (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  channel TEXT NOT NULL,
  checkpoint_seq INTEGER NOT NULL,
  version TEXT NOT NULL,
  encoding TEXT NOT NULL,
  base_checkpoint_seq INTEGER NULL,
  chain_count INTEGER NOT NULL DEFAULT 0,
  value_json TEXT NULL,
  value_hash TEXT NOT NULL,
  CONSTRAINT pk_state_checkpoint_blobs PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_seq, channel),
  CONSTRAINT fk_state_checkpoint_blobs_thread_id FOREIGN KEY (thread_id)
    REFERENCES state_threads (id) ON DELETE CASCADE,
  CONSTRAINT ck_state_checkpoint_blobs_encoding
    CHECK (encoding = 'full' OR encoding = 'append' OR encoding = 'patch' OR encoding = 'empty')
) WITHOUT ROWID;
INSERT INTO state_checkpoint_blobs_rebuilt (thread_id, checkpoint_ns, channel, checkpoint_seq,
  version, encoding, base_checkpoint_seq, chain_count, value_json, value_hash)
SELECT thread_id, checkpoint_ns, channel, checkpoint_seq, version, encoding, base_checkpoint_seq,
  chain_count, value_json, value_hash
FROM state_checkpoint_blobs;
DROP TABLE state_checkpoint_blobs;
ALTER TABLE state_checkpoint_blobs_rebuilt RENAME TO state_checkpoint_blobs;

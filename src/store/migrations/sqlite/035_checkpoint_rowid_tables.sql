-- The checkpoint tables as rowid tables (issue 14): a step's rows appended at the right edge of
-- their table's b-tree. WITHOUT ROWID tables are index b-trees keyed by thread, so each step's
-- row went into the middle of its tree, where SQLite splits a full leaf by rebalancing it with
-- its siblings (the one-page split at the right edge, balance_quick, is for rowid tables only):
-- ~6 WAL pages an agent step's commit. A rowid table takes the row at its right edge (the rowid
-- ascends with insert order) and the old primary key becomes a unique index of the same columns,
-- whose small entries split less often than the rows did (docs/durability.md, session 15). Reads
-- by the old key seek that index, then the row by its rowid; inserts fail on a duplicate key as
-- before. Rows, foreign keys with their cascade, CHECKs (chains of equalities, migration 034) and
-- the partial seq index are as before; nothing references these tables. Postgres keeps its
-- layout (its counterpart changes nothing).

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
  CONSTRAINT fk_state_checkpoints_thread_id FOREIGN KEY (thread_id)
    REFERENCES state_threads (id) ON DELETE CASCADE,
  CONSTRAINT ck_state_checkpoints_source
    CHECK (source = 'input' OR source = 'loop' OR source = 'update' OR source = 'fork'),
  CONSTRAINT ck_state_checkpoints_is_below_latest CHECK (is_below_latest IN (0, 1))
);
-- In the old key's order: the rowids of a thread's rows ascend with their ids, as new rows' do.
INSERT INTO state_checkpoints_rebuilt (thread_id, checkpoint_ns, id, seq, parent_checkpoint_id,
  format_version, step, source, checkpoint_json, channel_seqs_json, metadata_json, created_at,
  is_below_latest)
SELECT thread_id, checkpoint_ns, id, seq, parent_checkpoint_id, format_version, step, source,
  checkpoint_json, channel_seqs_json, metadata_json, created_at, is_below_latest
FROM state_checkpoints ORDER BY thread_id, checkpoint_ns, id;
DROP TABLE state_checkpoints;
ALTER TABLE state_checkpoints_rebuilt RENAME TO state_checkpoints;
CREATE UNIQUE INDEX ix_state_checkpoints_thread_id_checkpoint_ns_id
  ON state_checkpoints (thread_id, checkpoint_ns, id);
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
  CONSTRAINT fk_state_checkpoint_blobs_thread_id FOREIGN KEY (thread_id)
    REFERENCES state_threads (id) ON DELETE CASCADE,
  CONSTRAINT ck_state_checkpoint_blobs_encoding
    CHECK (encoding = 'full' OR encoding = 'append' OR encoding = 'patch' OR encoding = 'empty')
);
INSERT INTO state_checkpoint_blobs_rebuilt (thread_id, checkpoint_ns, channel, checkpoint_seq,
  version, encoding, base_checkpoint_seq, chain_count, value_json, value_hash)
SELECT thread_id, checkpoint_ns, channel, checkpoint_seq, version, encoding, base_checkpoint_seq,
  chain_count, value_json, value_hash
FROM state_checkpoint_blobs ORDER BY thread_id, checkpoint_ns, checkpoint_seq, channel;
DROP TABLE state_checkpoint_blobs;
ALTER TABLE state_checkpoint_blobs_rebuilt RENAME TO state_checkpoint_blobs;
CREATE UNIQUE INDEX ix_state_checkpoint_blobs_thread_id_checkpoint_ns_checkpoint_seq_channel
  ON state_checkpoint_blobs (thread_id, checkpoint_ns, checkpoint_seq, channel);

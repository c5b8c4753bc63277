-- Durable runs (issue 4): threads, per-channel versioned checkpoints, pending writes, runs.
-- The per-step tables are WITHOUT ROWID: one B-tree each, so a step's commit writes few pages.
-- Zone `state_`; naming per seed 004 (`_at` integer ms, `_json` text, kebab-case CHECK enums).

-- One row per thread: the fast index for `keel runs list` (updated_at is refreshed at most about
-- once a second per writer, so a step does not rewrite it) and the write lease.
CREATE TABLE state_threads (
  id TEXT NOT NULL,
  lease_owner TEXT NULL,
  lease_expires_at INTEGER NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  CONSTRAINT pk_state_threads PRIMARY KEY (id)
);
CREATE INDEX ix_state_threads_updated_at ON state_threads (updated_at, id);

-- One row per checkpoint. `checkpoint_json` holds the engine's checkpoint without its channel
-- values and version maps (format, timestamp); those live in
-- state_checkpoint_blobs, so a step stores only the channels it changed. `channel_seqs_json`
-- maps each channel with a value to the `seq` of the checkpoint that stored that value.
CREATE TABLE state_checkpoints (
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
  CONSTRAINT pk_state_checkpoints PRIMARY KEY (thread_id, checkpoint_ns, id),
  CONSTRAINT fk_state_checkpoints_thread_id FOREIGN KEY (thread_id)
    REFERENCES state_threads (id) ON DELETE CASCADE,
  CONSTRAINT ck_state_checkpoints_source CHECK (source IN ('input', 'loop', 'update', 'fork'))
) WITHOUT ROWID;

-- One row per stored channel value: (thread, namespace, channel, version), written by the
-- checkpoint `checkpoint_seq` (a fork may reuse a version number on another branch, so the
-- writer's seq is part of the key). `encoding` says how to read value_json: `full` is the whole
-- value, `append` the items appended to the list stored by `base_checkpoint_seq`, `patch` the
-- keys set and deleted since the record stored there, `empty` a channel with no value. The
-- engine's channel_versions and versions_seen are stored here too, under channel names that
-- start with the unit separator (U+001F). `value_hash` detects a corrupted value on read.
CREATE TABLE state_checkpoint_blobs (
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
  CONSTRAINT ck_state_checkpoint_blobs_encoding CHECK (encoding IN ('full', 'append', 'patch', 'empty'))
) WITHOUT ROWID;

-- The writes a task made while running from a checkpoint: saved as each task finishes, so a
-- completed task is never run again after a crash.
CREATE TABLE state_checkpoint_writes (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  task_path TEXT NOT NULL DEFAULT '',
  channel TEXT NOT NULL,
  value_json TEXT NULL,
  value_hash TEXT NOT NULL,
  CONSTRAINT pk_state_checkpoint_writes PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx),
  CONSTRAINT fk_state_checkpoint_writes_thread_id FOREIGN KEY (thread_id)
    REFERENCES state_threads (id) ON DELETE CASCADE
) WITHOUT ROWID;

-- One row per run: one execution of a graph on a thread (the seed-003 Task).
CREATE TABLE state_runs (
  id TEXT NOT NULL,
  thread_id TEXT NOT NULL,
  status TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  graph_id TEXT NULL,
  trigger_event_id TEXT NULL,
  autonomy_level_at_start TEXT NULL,
  labels_json TEXT NOT NULL DEFAULT '[]',
  input_json TEXT NULL,
  error_json TEXT NULL,
  cancel_reason TEXT NULL,
  next_wake_at INTEGER NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  started_at INTEGER NULL,
  finished_at INTEGER NULL,
  CONSTRAINT pk_state_runs PRIMARY KEY (id),
  CONSTRAINT ck_state_runs_status
    CHECK (status IN ('pending', 'running', 'paused', 'succeeded', 'failed', 'canceled'))
);
CREATE INDEX ix_state_runs_thread_id_created_at ON state_runs (thread_id, created_at);
CREATE INDEX ix_state_runs_status_updated_at ON state_runs (status, updated_at);
CREATE INDEX ix_state_runs_created_at ON state_runs (created_at);

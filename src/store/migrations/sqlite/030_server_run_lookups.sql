-- Two lookups every run of `keel serve` makes (issue 18), each of which read a thread's whole
-- history before: the next checkpoint number of a thread (`MAX(seq)`, the durable saver, once
-- per run) becomes one index seek, and "has this thread a run pending or running?" (the
-- `reject` multitask strategy, once per run created) reads an index of the live runs only. That
-- one is partial so that it stays as small as the number of runs in flight: a run enters it when
-- it is created and leaves it when it ends, and finished runs cost it nothing. The query must
-- spell the same condition (`status IN ('pending', 'running')`, with literals) to use it.
CREATE INDEX ix_state_checkpoints_thread_id_checkpoint_ns_seq ON state_checkpoints (thread_id, checkpoint_ns, seq);
CREATE INDEX ix_state_runs_thread_id ON state_runs (thread_id) WHERE status IN ('pending', 'running');

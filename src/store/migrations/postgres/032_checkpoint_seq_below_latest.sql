-- The next checkpoint number of a place (thread + namespace) without an index written at every
-- step (issue 21). 030's index on (thread_id, checkpoint_ns, seq) made the saver's `MAX(seq)` one
-- seek, but every step then wrote a page of it besides the table's own: 4.6 pages a step against
-- 3.1 without it, which at synchronous=FULL is a third more bytes to sync per commit.
--
-- The highest seq of a place is the seq of its latest checkpoint (greatest id) unless a row was
-- written with an id below the latest one (a fork from the past by a process whose clock is
-- behind). The saver marks such a row `is_below_latest = 1`, and the index keeps only those rows:
-- the highest seq is the greater of the latest row's and the highest marked one's, two seeks.
-- Existing rows whose seq is above their place's latest row's are marked here.
ALTER TABLE state_checkpoints ADD COLUMN is_below_latest INTEGER NOT NULL DEFAULT 0 CONSTRAINT ck_state_checkpoints_is_below_latest CHECK (is_below_latest IN (0, 1));
UPDATE state_checkpoints c SET is_below_latest = 1
WHERE seq > (SELECT l.seq FROM state_checkpoints l
  WHERE l.thread_id = c.thread_id AND l.checkpoint_ns = c.checkpoint_ns
  ORDER BY l.id DESC LIMIT 1);
DROP INDEX ix_state_checkpoints_thread_id_checkpoint_ns_seq;
CREATE INDEX ix_state_checkpoints_thread_id_checkpoint_ns_seq ON state_checkpoints (thread_id, checkpoint_ns, seq) WHERE is_below_latest = 1;

-- Decision memory (issue 17, seed 001): semantic records with their history, episodic events,
-- vectors, and a full-text index. Zone `state_`; naming per seed 004 (kebab-case CHECK enums:
-- the seed's `reflection_engine` is stored `reflection-engine`, `commit_change` as
-- `commit-change`; src/memory maps them at the boundary).
--
-- The invariants hold here, not only in code:
--   one active decision per (namespace, target)  the partial unique index below;
--   immutable core fields                         tr_state_memory_records_immutable;
--   two-way supersede links                       one link column (`supersedes` is derived from
--                                                 it) and ck_state_memory_records_superseded_link
--                                                 (superseded exactly when it has a successor);
--   no supersede cycles                           a successor is always a later record (greater
--                                                 `seq`), so every chain strictly ascends.

CREATE TABLE state_memory_records (
  id TEXT NOT NULL PRIMARY KEY,
  seq INTEGER NOT NULL,
  namespace TEXT NOT NULL,
  kind TEXT NOT NULL,
  source TEXT NOT NULL,
  status TEXT NOT NULL,
  target TEXT NOT NULL,
  title TEXT NOT NULL,
  rationale TEXT NOT NULL,
  content TEXT NOT NULL,
  keywords TEXT NOT NULL DEFAULT '',
  context_json TEXT NOT NULL,
  superseded_by_memory_record_id TEXT NULL,
  phase TEXT NOT NULL DEFAULT 'pattern',
  vitality TEXT NOT NULL DEFAULT 'active',
  scope TEXT NOT NULL DEFAULT 'local',
  provenance TEXT NOT NULL DEFAULT 'internal',
  confidence DOUBLE PRECISION NOT NULL,
  hit_count INTEGER NOT NULL DEFAULT 0,
  stream_json TEXT NOT NULL DEFAULT '{}',
  last_hit_at INTEGER NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  CONSTRAINT fk_state_memory_records_superseded_by FOREIGN KEY (superseded_by_memory_record_id) REFERENCES state_memory_records (id),
  CONSTRAINT ck_state_memory_records_kind CHECK (kind IN ('decision', 'proposal', 'intervention', 'constraint', 'assumption')),
  CONSTRAINT ck_state_memory_records_source CHECK (source IN ('user', 'agent', 'system', 'reflection-engine', 'bridge')),
  CONSTRAINT ck_state_memory_records_status CHECK ((kind = 'proposal' AND status IN ('draft', 'accepted', 'rejected', 'falsified')) OR (kind <> 'proposal' AND status IN ('active', 'deprecated', 'superseded', 'draft'))),
  CONSTRAINT ck_state_memory_records_phase CHECK (phase IN ('pattern', 'emergent', 'canonical')),
  CONSTRAINT ck_state_memory_records_vitality CHECK (vitality IN ('active', 'decaying', 'dormant')),
  CONSTRAINT ck_state_memory_records_scope CHECK (scope IN ('local', 'system', 'infra')),
  CONSTRAINT ck_state_memory_records_provenance CHECK (provenance IN ('internal', 'external')),
  CONSTRAINT ck_state_memory_records_superseded_link CHECK ((status = 'superseded') = (superseded_by_memory_record_id IS NOT NULL)),
  CONSTRAINT ck_state_memory_records_target CHECK (length(trim(target)) >= 3)
);
CREATE UNIQUE INDEX ix_state_memory_records_seq ON state_memory_records (seq);
CREATE UNIQUE INDEX ix_state_memory_records_namespace_target ON state_memory_records (namespace, target)
  WHERE status = 'active' AND kind = 'decision';
CREATE INDEX ix_state_memory_records_superseded_by_memory_record_id ON state_memory_records (superseded_by_memory_record_id);
CREATE INDEX ix_state_memory_records_namespace_status ON state_memory_records (namespace, status);

CREATE TRIGGER tr_state_memory_records_immutable BEFORE UPDATE ON state_memory_records
WHEN NEW.id IS NOT OLD.id OR NEW.seq IS NOT OLD.seq OR NEW.kind IS NOT OLD.kind
  OR NEW.namespace IS NOT OLD.namespace OR NEW.source IS NOT OLD.source
  OR NEW.target IS NOT OLD.target OR NEW.created_at IS NOT OLD.created_at
  OR (OLD.kind <> 'proposal' AND (NEW.title IS NOT OLD.title OR NEW.rationale IS NOT OLD.rationale OR NEW.content IS NOT OLD.content))
  OR (OLD.superseded_by_memory_record_id IS NOT NULL AND NEW.superseded_by_memory_record_id IS NOT OLD.superseded_by_memory_record_id)
BEGIN
  SELECT RAISE(ABORT, 'memory invariant I1: the core fields of a memory record are immutable (record a new one, or supersede it)');
END;

CREATE TRIGGER tr_state_memory_records_link_insert BEFORE INSERT ON state_memory_records
WHEN NEW.superseded_by_memory_record_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM state_memory_records s WHERE s.id = NEW.superseded_by_memory_record_id AND s.seq > NEW.seq)
BEGIN
  SELECT RAISE(ABORT, 'memory invariant I5: a record can only be superseded by a later record (no cycles)');
END;

CREATE TRIGGER tr_state_memory_records_link_update BEFORE UPDATE OF superseded_by_memory_record_id ON state_memory_records
WHEN NEW.superseded_by_memory_record_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM state_memory_records s WHERE s.id = NEW.superseded_by_memory_record_id AND s.seq > NEW.seq)
BEGIN
  SELECT RAISE(ABORT, 'memory invariant I5: a record can only be superseded by a later record (no cycles)');
END;

-- Every version of every record: written by the database on insert and on each change of
-- meaning (status, link, content), never by hand. Search hits (hit_count) are not versions.
CREATE TABLE state_memory_revisions (
  id INTEGER NOT NULL PRIMARY KEY,
  memory_record_id TEXT NOT NULL,
  change TEXT NOT NULL,
  status TEXT NOT NULL,
  superseded_by_memory_record_id TEXT NULL,
  context_json TEXT NOT NULL,
  confidence DOUBLE PRECISION NOT NULL,
  recorded_at INTEGER NOT NULL,
  CONSTRAINT fk_state_memory_revisions_memory_record_id FOREIGN KEY (memory_record_id) REFERENCES state_memory_records (id) ON DELETE CASCADE,
  CONSTRAINT ck_state_memory_revisions_change CHECK (change IN ('created', 'updated'))
);
CREATE INDEX ix_state_memory_revisions_memory_record_id ON state_memory_revisions (memory_record_id);

CREATE TRIGGER tr_state_memory_records_revision_insert AFTER INSERT ON state_memory_records
BEGIN
  INSERT INTO state_memory_revisions (memory_record_id, change, status, superseded_by_memory_record_id, context_json, confidence, recorded_at)
  VALUES (NEW.id, 'created', NEW.status, NEW.superseded_by_memory_record_id, NEW.context_json, NEW.confidence, NEW.updated_at);
END;

CREATE TRIGGER tr_state_memory_records_revision_update AFTER UPDATE OF status, superseded_by_memory_record_id, context_json, title, rationale, content ON state_memory_records
BEGIN
  INSERT INTO state_memory_revisions (memory_record_id, change, status, superseded_by_memory_record_id, context_json, confidence, recorded_at)
  VALUES (NEW.id, 'updated', NEW.status, NEW.superseded_by_memory_record_id, NEW.context_json, NEW.confidence, NEW.updated_at);
END;

CREATE TRIGGER tr_state_memory_revisions_no_update BEFORE UPDATE ON state_memory_revisions
BEGIN
  SELECT RAISE(ABORT, 'memory: revisions are history and never change');
END;

-- Episodic events. Exact duplicates (same kind, source, content and context) are refused by
-- the unique content hash; `memory_record_id` links an event to a record as its evidence.
CREATE TABLE state_memory_events (
  id INTEGER NOT NULL PRIMARY KEY,
  namespace TEXT NOT NULL,
  source TEXT NOT NULL,
  kind TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active',
  content TEXT NOT NULL,
  context_json TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  memory_record_id TEXT NULL,
  occurred_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  CONSTRAINT fk_state_memory_events_memory_record_id FOREIGN KEY (memory_record_id) REFERENCES state_memory_records (id) ON DELETE SET NULL,
  CONSTRAINT ck_state_memory_events_source CHECK (source IN ('user', 'agent', 'system', 'reflection-engine', 'bridge')),
  CONSTRAINT ck_state_memory_events_kind CHECK (kind IN ('decision', 'error', 'config-change', 'assumption', 'constraint', 'result', 'proposal', 'context-snapshot', 'context-injection', 'task', 'call', 'commit-change', 'prompt', 'intervention', 'reflection-summary')),
  CONSTRAINT ck_state_memory_events_status CHECK (status IN ('active', 'archived'))
);
CREATE UNIQUE INDEX ix_state_memory_events_content_hash ON state_memory_events (content_hash);
CREATE INDEX ix_state_memory_events_memory_record_id ON state_memory_events (memory_record_id);
CREATE INDEX ix_state_memory_events_kind_occurred_at ON state_memory_events (kind, occurred_at);

-- Embeddings of records (optional: only with an embedder configured).
CREATE TABLE state_memory_vectors (
  memory_record_id TEXT NOT NULL PRIMARY KEY,
  model TEXT NOT NULL,
  dimension_count INTEGER NOT NULL,
  vector_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  CONSTRAINT fk_state_memory_vectors_memory_record_id FOREIGN KEY (memory_record_id) REFERENCES state_memory_records (id) ON DELETE CASCADE
);

-- Full text (FTS5) over the records, kept in step by triggers. Its rowid is the record's `seq`
-- (a stable integer: VACUUM may renumber the implicit rowids of a table keyed by text).
CREATE VIRTUAL TABLE state_memory_texts USING fts5(
  title, target, rationale, content, keywords,
  content='state_memory_records', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
);

CREATE TRIGGER tr_state_memory_records_texts_insert AFTER INSERT ON state_memory_records
BEGIN
  INSERT INTO state_memory_texts (ROWID, title, target, rationale, content, keywords)
  VALUES (NEW.seq, NEW.title, NEW.target, NEW.rationale, NEW.content, NEW.keywords);
END;

CREATE TRIGGER tr_state_memory_records_texts_delete AFTER DELETE ON state_memory_records
BEGIN
  INSERT INTO state_memory_texts (state_memory_texts, ROWID, title, target, rationale, content, keywords)
  VALUES ('delete', OLD.seq, OLD.title, OLD.target, OLD.rationale, OLD.content, OLD.keywords);
END;

CREATE TRIGGER tr_state_memory_records_texts_update AFTER UPDATE OF title, target, rationale, content, keywords ON state_memory_records
BEGIN
  INSERT INTO state_memory_texts (state_memory_texts, ROWID, title, target, rationale, content, keywords)
  VALUES ('delete', OLD.seq, OLD.title, OLD.target, OLD.rationale, OLD.content, OLD.keywords);
  INSERT INTO state_memory_texts (ROWID, title, target, rationale, content, keywords)
  VALUES (NEW.seq, NEW.title, NEW.target, NEW.rationale, NEW.content, NEW.keywords);
END;

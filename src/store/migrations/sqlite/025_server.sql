-- keel serve (issue 18): API tokens, and what the LangGraph-compatible API keeps beside the
-- durable savers' own tables. Naming per seed 004 (`_at` integer ms, `_json` text).

-- Bearer tokens. Zone `config_`: operators create and revoke them; only the sha256 of a token
-- is stored (the secret is shown once, at creation).
CREATE TABLE config_api_tokens (
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL,
  capabilities_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NULL,
  revoked_at INTEGER NULL,
  CONSTRAINT pk_config_api_tokens PRIMARY KEY (id)
);
CREATE UNIQUE INDEX ix_config_api_tokens_token_hash ON config_api_tokens (token_hash);

-- A thread created through the API: its metadata (the checkpoints live in state_threads and
-- state_checkpoints, created by the first run).
CREATE TABLE state_api_threads (
  id TEXT NOT NULL,
  metadata_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  CONSTRAINT pk_state_api_threads PRIMARY KEY (id)
);
CREATE INDEX ix_state_api_threads_updated_at_id ON state_api_threads (updated_at, id);

-- What a run was asked to do (assistant, input or command, config, stream modes), so that a
-- server restarted after a crash can start a run that never began or resume one that did.
CREATE TABLE state_api_runs (
  id TEXT NOT NULL,
  thread_id TEXT NOT NULL,
  assistant_id TEXT NOT NULL,
  kwargs_json TEXT NOT NULL,
  metadata_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  CONSTRAINT pk_state_api_runs PRIMARY KEY (id)
);
CREATE INDEX ix_state_api_runs_thread_id_created_at ON state_api_runs (thread_id, created_at);

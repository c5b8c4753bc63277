-- Keeps the dialects' migration numbers in step with Postgres 026 (a stored search vector).
-- SQLite's FTS5 index already holds the words; merging its segments into one b-tree makes
-- each MATCH read fewer pages after bulk loads.
INSERT INTO state_memory_texts (state_memory_texts) VALUES ('optimize');

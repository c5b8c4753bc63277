-- SQLite's migration of the same number rebuilds the checkpoint tables as rowid tables (a step's
-- rows appended at the right edge of their b-tree, the old primary key kept as a unique
-- index). A Postgres table is a heap already (rows appended, the primary key an index
-- beside it), and its step is bound by the round trip rather than by pages: nothing changes
-- here; the file keeps the two dialects' migration numbers in step.
SELECT 1;

-- SQLite's migration of the same number rewrites the checkpoint tables' enum CHECKs (`x IN (…)`, which SQLite evaluates
-- through a temporary b-tree per row) as chains of equalities. Postgres evaluates the same lists
-- in place (`x = ANY (ARRAY[…])`), so there is nothing to change here: the file keeps the two
-- dialects' migration numbers in step.
SELECT 1;

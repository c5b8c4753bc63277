-- Placeholder: number 030 is reserved for issue 21's migration (session 4). It exists only so
-- that 031 can be applied on this branch (numbers have no gaps); whoever merges issue 21's 030
-- deletes this file. It changes nothing.
SELECT 1;

-- Reserved: a migration number held for work in progress on another branch; replaced by that
-- branch's migration when it lands. It changes nothing.
SELECT 1;

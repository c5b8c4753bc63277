import { tokenize } from "../plugins/sql-tokens.js";
import type { NamingProblem } from "./naming-rules.js";

/**
 * Words that are SQL keywords wherever Keel's migrations use them (none is a column or table
 * name in the catalog). Words that are keywords in some places and names in others (`key`,
 * `version`, `action`, `type`…) are left out, except `KEY` after PRIMARY or FOREIGN.
 */
const KEYWORDS = new Set(
  `ABORT ADD AFTER ALL ALTER ALWAYS AND ANY ARRAY AS ASC AUTOINCREMENT BEFORE BEGIN BETWEEN BIGINT
  BLOB BOOLEAN BY CASCADE CASE CAST CHECK COLLATE COLUMN COMMENT CONFLICT CONSTRAINT CREATE CROSS
  DEFAULT DEFERRABLE DEFERRED DELETE DESC DISTINCT DO DROP EACH ELSE END ESCAPE EXCEPT EXISTS FOR
  FOREIGN FROM FUNCTION GENERATED GLOB GROUP HAVING IDENTITY IF IN INDEX INHERITS INITIALLY INNER
  INSERT INSTEAD INTEGER INTERSECT INTO IS JOIN JSONB LANGUAGE LEFT LIKE LIMIT NOT NOTHING NULL OF
  OFFSET ON OR ORDER OUTER PRIMARY RAISE REAL REFERENCES RENAME REPLACE RESTRICT RETURNING RETURNS
  ROW ROWID SELECT SET TABLE TEMP TEMPORARY TEXT THEN TO TRIGGER UNION UNIQUE UPDATE USING VALUES
  VARCHAR VIEW WHEN WHERE WITH WITHOUT EXECUTE PROCEDURE STATEMENT TRUNCATE NEW OLD DECLARE RETURN
  PERFORM EXCEPTION LOOP ELSIF IMMUTABLE STABLE VOLATILE STRICT SECURITY DEFINER DOUBLE PRECISION
  VIRTUAL STORED GIN SHARE INCLUDE ANALYZE`.split(/\s+/),
);

/**
 * The seed's last naming rule, which is about SQL text rather than the schema: keywords
 * UPPERCASE, identifiers lowercase. Checks one migration file (comments, strings and quoted
 * identifiers are skipped; a word written as a call, `length(x)`, is a function and may be
 * lowercase whatever it is).
 *
 * @example
 * checkSqlKeywordCase("create table x (id TEXT)", "001_init.sql"); // create, table: not UPPERCASE
 */
export function checkSqlKeywordCase(sql: string, file: string): NamingProblem[] {
  const problems: NamingProblem[] = [];
  const tokens = tokenize(sql);
  tokens.forEach((token, at) => {
    if (token.kind !== "word") return;
    const next = tokens[at + 1];
    if (next?.text === "(" && next.start === token.end) return; // a call
    const upper = token.text.toUpperCase();
    const previous = tokens[at - 1]?.text.toUpperCase();
    // After RETURNS comes a type's name (Postgres's `RETURNS trigger`): a name, in any case.
    if (previous === "RETURNS") return;
    const keyword =
      KEYWORDS.has(upper) ||
      (upper === "KEY" && (previous === "PRIMARY" || previous === "FOREIGN"));
    if (keyword && token.text !== upper) {
      problems.push({
        table: file,
        object: token.text,
        rule: "sql-keyword-case",
        message: `${file}: the keyword "${token.text}" must be written UPPERCASE`,
      });
    } else if (!keyword && token.text !== token.text.toLowerCase()) {
      problems.push({
        table: file,
        object: token.text,
        rule: "sql-keyword-case",
        message: `${file}: the identifier "${token.text}" must be written lowercase (or it is a keyword Keel does not list)`,
      });
    }
  });
  return problems;
}

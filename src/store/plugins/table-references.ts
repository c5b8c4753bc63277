import { identifier, type SqlToken } from "./sql-tokens.js";

/** A place in a statement where a table is named. */
export interface TableReference {
  /** Index of the name token in the statement. */
  readonly index: number;
  readonly name: string;
  /** `schema.table`: the plugin may not reach into another schema or attached database. */
  readonly qualified: boolean;
  /** `FROM f(…)`: a table-valued function, not a table. */
  readonly isFunction: boolean;
  /**
   * What introduced it: `from`, `join`, `into`, `update`, `table`, `using`, `references`, or
   * (DDL) `inherits`, `partition`, `like`.
   */
  readonly via: string;
}

const LIST_END = new Set([
  "where",
  "group",
  "order",
  "limit",
  "on",
  "using",
  "join",
  "left",
  "right",
  "inner",
  "outer",
  "cross",
  "natural",
  "union",
  "except",
  "intersect",
  "having",
  "window",
  "returning",
  "set",
  "values",
  "select",
  "full",
  "offset",
  "default",
  "do",
  "begin",
  "end",
  "when",
  "for",
  "indexed",
  "not",
  "tablesample",
  "fetch",
]);

/** Words after which `TABLE` is part of DDL, not the `TABLE name` query form. */
const TABLE_IN_DDL = new Set([
  "create",
  "alter",
  "drop",
  "temp",
  "temporary",
  "unlogged",
  "truncate",
  "lock",
  "global",
  "local",
  "foreign",
  "virtual",
]);

/** Words that open a subquery right after `(`. */
const SUBQUERY_START = new Set(["select", "with", "values", "table"]);

/**
 * Finds every table named in one statement: after FROM and JOIN (comma lists, parenthesised
 * joins such as `FROM (a CROSS JOIN b)`, `ONLY`, `LATERAL`), INTO, UPDATE, Postgres's `TABLE
 * name`, `DELETE … USING`, REFERENCES, and in DDL `INHERITS (…)`, `INHERIT`, `PARTITION OF`,
 * `ATTACH|DETACH PARTITION` and `LIKE` in a table's element list. Subqueries are not skipped:
 * their own FROM is found as the scan goes on. Callers that must be sure also look at every
 * identifier (see scoped-db.ts): this finds positions, so that logical names can be rewritten.
 */
export function tableReferences(tokens: readonly SqlToken[], from = 0): TableReference[] {
  const found: TableReference[] = [];
  const word = (at: number) => (tokens[at]?.kind === "word" ? tokens[at]?.value : undefined);
  const single = (at: number, via: string): number => {
    const name = identifier(tokens[at]);
    if (name === undefined) return at;
    const next = tokens[at + 1];
    if (next?.text === ".") {
      found.push({
        index: at + 2,
        name: identifier(tokens[at + 2]) ?? "",
        qualified: true,
        isFunction: tokens[at + 3]?.text === "(",
        via,
      });
      return at + 3;
    }
    // After FROM, JOIN or USING, "name(" is a table-valued function; after INTO or REFERENCES, a column list.
    const isFunction = next?.text === "(" && ["from", "join", "using"].includes(via);
    found.push({ index: at, name, qualified: false, isFunction, via });
    return at + 1;
  };
  /** The index just after the `)` matching the `(` at `at`. */
  const skipParens = (at: number): number => {
    let depth = 0;
    for (let i = at; i < tokens.length; i++) {
      if (tokens[i]?.text === "(") depth++;
      else if (tokens[i]?.text === ")" && --depth === 0) return i + 1;
    }
    return tokens.length;
  };
  const fromItem = (start: number, via: string): number => {
    let at = start;
    while (word(at) === "lateral" || word(at) === "only") at++;
    if (tokens[at]?.text === "(") {
      // A subquery's own tables are found by the scan; a parenthesised join list starts with one.
      if (!SUBQUERY_START.has(word(at + 1) ?? "")) fromList(at + 1, via);
      at = skipParens(at);
    } else {
      const before = found.length;
      at = single(at, via);
      if (found.length > before && found[found.length - 1]?.isFunction) at = skipParens(at);
    }
    if (word(at) === "as") at += 2;
    else if (identifier(tokens[at]) !== undefined && !LIST_END.has(word(at) ?? "")) at++;
    if (tokens[at]?.text === "(") at = skipParens(at); // column aliases: x (a, b)
    return at;
  };
  const fromList = (start: number, via: string): number => {
    let at = fromItem(start, via);
    while (tokens[at]?.text === ",") at = fromItem(at + 1, via);
    return at;
  };
  const nameList = (start: number, via: string) => {
    let at = single(start, via);
    while (tokens[at]?.text === ",") at = single(at + 1, via);
  };
  const isCreate = word(0) === "create";
  const isDelete =
    word(0) === "delete" || (word(0) === "with" && tokens.some((t) => t.value === "delete"));

  for (let i = from; i < tokens.length; i++) {
    const token = tokens[i];
    if (token?.kind !== "word") continue;
    const previous = tokens[i - 1];
    const previousWord = previous?.kind === "word" ? previous.value : undefined;
    switch (token.value) {
      case "from":
        fromList(i + 1, "from");
        break;
      case "join":
        fromItem(i + 1, "join");
        break;
      case "into":
        single(i + 1, "into");
        break;
      case "references":
        single(i + 1, "references");
        break;
      case "table":
        // Postgres's `TABLE name` (a query), not CREATE/ALTER/DROP TABLE.
        if (!TABLE_IN_DDL.has(previousWord ?? "")) single(i + 1, "table");
        break;
      case "using":
        // DELETE … USING t (Postgres); JOIN … USING (cols) and CREATE INDEX … USING btree are not tables.
        if (isDelete && tokens[i + 1]?.text !== "(") fromList(i + 1, "using");
        break;
      case "update":
        // Not "DO UPDATE" (upsert), "FOR UPDATE" (locking) or a trigger's event.
        if (!["do", "for", "before", "after", "of", "or"].includes(previousWord ?? "")) {
          let at = i + 1;
          if (word(at) === "or") at += 2; // UPDATE OR REPLACE t
          if (word(at) === "only") at++;
          single(at, "update");
        }
        break;
      case "inherits":
        if (tokens[i + 1]?.text === "(") nameList(i + 2, "inherits");
        break;
      case "inherit":
        // ALTER TABLE t [NO] INHERIT parent
        single(i + 1, "inherits");
        break;
      case "partition":
        // CREATE TABLE t PARTITION OF parent; ALTER TABLE t ATTACH|DETACH PARTITION child
        if (word(i + 1) === "of") single(i + 2, "partition");
        else if (previousWord === "attach" || previousWord === "detach") single(i + 1, "partition");
        break;
      case "like":
        // CREATE TABLE t (LIKE source …): only as a table element, never the LIKE operator.
        if (isCreate && (previous?.text === "(" || previous?.text === ",")) single(i + 1, "like");
        break;
      default:
        break;
    }
  }
  return found;
}

/** Names a WITH clause defines (`WITH x AS (…)`): queries may read them freely. */
export function cteNames(tokens: readonly SqlToken[]): Set<string> {
  const names = new Set<string>();
  if (tokens[0]?.value !== "with") return names;
  let depth = 0;
  for (let i = 1; i < tokens.length; i++) {
    const text = tokens[i]?.text;
    if (text === "(") depth++;
    else if (text === ")") depth--;
    else if (depth === 0 && tokens[i]?.value === "as" && tokens[i + 1]?.text === "(") {
      const name = identifier(tokens[i - 1]);
      if (name) names.add(name);
    } else if (depth === 0 && tokens[i]?.value === "select") break;
  }
  // `WITH x(a, b) AS (…)`: the name sits before the column list.
  for (let i = 1; i < tokens.length; i++) {
    if (
      tokens[i]?.text === "(" &&
      tokens[i - 1]?.kind === "word" &&
      tokens[i - 2] &&
      ["with", "recursive", ","].includes(tokens[i - 2]?.value ?? "")
    ) {
      const name = identifier(tokens[i - 1]);
      if (name) names.add(name);
    }
  }
  return names;
}

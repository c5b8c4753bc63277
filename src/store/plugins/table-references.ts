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
  /** What introduced it: `from`, `join`, `into`, `update`, `references`. */
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
]);

/**
 * Finds every table named after FROM, JOIN, INTO, UPDATE and REFERENCES in one statement.
 * Subqueries (`FROM (SELECT …)`) are skipped here; their own FROM is found as the scan goes on.
 */
export function tableReferences(tokens: readonly SqlToken[], from = 0): TableReference[] {
  const found: TableReference[] = [];
  const single = (at: number, via: string): number => {
    const token = tokens[at];
    const name = identifier(token);
    if (name === undefined) return at;
    const next = tokens[at + 1];
    if (next?.text === ".") {
      found.push({
        index: at + 2,
        name: identifier(tokens[at + 2]) ?? "",
        qualified: true,
        isFunction: false,
        via,
      });
      return at + 3;
    }
    // After FROM or JOIN, "name(" is a table-valued function; after INTO or REFERENCES, a column list.
    const isFunction = next?.text === "(" && (via === "from" || via === "join");
    found.push({ index: at, name, qualified: false, isFunction, via });
    return at + 1;
  };
  for (let i = from; i < tokens.length; i++) {
    const token = tokens[i];
    if (token?.kind !== "word") continue;
    const previous = tokens[i - 1]?.value;
    switch (token.value) {
      case "from": {
        let at = i + 1;
        for (;;) {
          at = single(at, "from");
          // alias: AS x, or a bare word that is not a keyword
          if (tokens[at]?.value === "as") at += 2;
          else if (identifier(tokens[at]) !== undefined && !LIST_END.has(tokens[at]?.value ?? ""))
            at++;
          if (tokens[at]?.text !== ",") break;
          at++;
        }
        break;
      }
      case "join":
        single(i + 1, "join");
        break;
      case "into":
        single(i + 1, "into");
        break;
      case "references":
        single(i + 1, "references");
        break;
      case "update":
        // Not "DO UPDATE" (upsert), "FOR UPDATE" (locking) or a trigger's event.
        if (!["do", "for", "before", "after", "of", "or"].includes(previous ?? "")) {
          let at = i + 1;
          if (tokens[at]?.value === "or") at += 2; // UPDATE OR REPLACE t
          single(at, "update");
        }
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

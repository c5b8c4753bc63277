/**
 * The portable Cypher subset a node's configuration may carry (IR 1.1.0, Stargraph 0.8): a query
 * under a `cypher` or `*_cypher` key must run on any Cypher store, so store-specific procedures,
 * unbounded path lengths and the constructs only some servers accept are refused when the
 * document is validated rather than when a run first queries the store.
 *
 * This is a token-level check, not a Cypher parser: it finds each refused construct wherever the
 * token sequence shows it, outside strings and comments, and reports malformed text only as far
 * as tokens tell (an unterminated string or comment, unbalanced brackets, a query that does not
 * start with a clause). A query a parser would refuse for its grammar alone may pass it.
 */

import type { IRDocument } from "./models/index.js";
import { hintFor, type Problem, renderActual } from "./problems.js";

/** Why a query is outside the portable subset. */
export interface CypherViolation {
  /** Stable rule name, e.g. `banned-procedure`, `varlen-unbounded`. */
  rule: string;
  message: string;
}

/** Procedure namespaces of particular stores (APOC, Graph Data Science, Neo4j's system calls). */
const BANNED_NAMESPACES = new Set(["apoc", "gds", "db"]);

const CLAUSES = new Set([
  "match",
  "optional",
  "with",
  "return",
  "unwind",
  "create",
  "merge",
  "call",
  "use",
  "foreach",
  "delete",
  "detach",
  "set",
  "remove",
  "show",
  "load",
]);

type TokenKind = "word" | "number" | "string" | "punct";
interface Token {
  kind: TokenKind;
  text: string;
}

/**
 * The first way `query` leaves the portable subset, or undefined when it stays inside.
 *
 * @example
 * cypherViolation("MATCH (a)-[*]->(b) RETURN b")?.rule // "varlen-unbounded"
 * cypherViolation("MATCH (a:User) RETURN a.name") // undefined
 */
export function cypherViolation(query: string): CypherViolation | undefined {
  const tokens = tokenize(query);
  if (typeof tokens === "string") return { rule: "parse-error", message: tokens };
  return (
    structureViolation(tokens) ??
    firstOf(tokens, [
      loadCsv,
      showCommand,
      bannedProcedure,
      unboundedLength,
      yieldStar,
      callSubquery,
      pathComprehension,
      shortestPath,
      mapProjection,
    ])
  );
}

/** True for a configuration key that conventionally holds a Cypher query. */
export function isCypherKey(key: string): boolean {
  return key === "cypher" || key.endsWith("_cypher");
}

/**
 * A `cypher_unportable` problem at `/nodes/<i>/config/<key>` for each string query in a node's
 * configuration that leaves the portable subset; other values under such keys (a query builder's
 * structure) are not Cypher text and are left alone.
 *
 * @example
 * cypherProblems(doc) // [{ code: "cypher_unportable", path: "/nodes/0/config/cypher", … }]
 */
export function cypherProblems(doc: IRDocument): Problem[] {
  const problems: Problem[] = [];
  doc.nodes.forEach((node, index) => {
    for (const [key, value] of Object.entries(node.config)) {
      if (!isCypherKey(key) || typeof value !== "string") continue;
      const violation = cypherViolation(value);
      if (violation === undefined) continue;
      problems.push({
        code: "cypher_unportable",
        path: `/nodes/${index}/config/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`,
        message: `The query is outside the portable Cypher subset (${violation.rule}): ${violation.message}.`,
        expected: "a query in the portable Cypher subset",
        actual: renderActual(value),
        hint: hintFor("cypher_unportable"),
      });
    }
  });
  return problems;
}

type Rule = (tokens: readonly Token[], index: number) => CypherViolation | undefined;

function firstOf(tokens: readonly Token[], rules: readonly Rule[]): CypherViolation | undefined {
  for (let index = 0; index < tokens.length; index++) {
    for (const rule of rules) {
      const violation = rule(tokens, index);
      if (violation) return violation;
    }
  }
  return undefined;
}

const word = (token: Token | undefined, ...texts: string[]): boolean =>
  token?.kind === "word" && texts.includes(token.text.toLowerCase());
const punct = (token: Token | undefined, text: string): boolean =>
  token?.kind === "punct" && token.text === text;

function structureViolation(tokens: readonly Token[]): CypherViolation | undefined {
  const first = tokens[0];
  if (first === undefined) return { rule: "parse-error", message: "the query is empty" };
  if (!word(first, ...CLAUSES)) {
    return {
      rule: "parse-error",
      message: `a query starts with a clause (MATCH, RETURN, …), not "${first.text}"`,
    };
  }
  const open: string[] = [];
  const closing: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
  for (const token of tokens) {
    if (token.kind !== "punct") continue;
    if (token.text === "(" || token.text === "[" || token.text === "{") open.push(token.text);
    const opener = closing[token.text];
    if (opener !== undefined && open.pop() !== opener) {
      return { rule: "parse-error", message: `"${token.text}" closes nothing open` };
    }
  }
  if (open.length > 0) return { rule: "parse-error", message: `"${open.at(-1)}" is never closed` };
  return undefined;
}

const loadCsv: Rule = (tokens, i) =>
  word(tokens[i], "load") && word(tokens[i + 1], "csv")
    ? { rule: "load-csv", message: "LOAD CSV reads files on the server: not portable" }
    : undefined;

const showCommand: Rule = (tokens, i) =>
  i === 0 && word(tokens[i], "show")
    ? { rule: "show-command", message: "SHOW commands are server administration: not portable" }
    : undefined;

/** `apoc.x.y(…)`, `CALL db.labels()`: a dotted name in a banned namespace, called. */
const bannedProcedure: Rule = (tokens, i) => {
  const head = tokens[i];
  if (head?.kind !== "word" || punct(tokens[i - 1], ".") || !punct(tokens[i + 1], ".")) {
    return undefined;
  }
  let end = i;
  while (punct(tokens[end + 1], ".") && tokens[end + 2]?.kind === "word") end += 2;
  const called = punct(tokens[end + 1], "(") || word(tokens[i - 1], "call");
  if (!called || !BANNED_NAMESPACES.has(head.text.toLowerCase())) return undefined;
  const name = tokens
    .slice(i, end + 1)
    .map((t) => t.text)
    .join("");
  return {
    rule: "banned-procedure",
    message: `"${name}" belongs to one store's procedures (apoc, gds and db are not portable)`,
  };
};

/** `-[*]-`, `-[:T*2..]-` and `{1,}` quantifiers: a path length without an upper bound. */
const unboundedLength: Rule = (tokens, i) => {
  const unbounded = {
    rule: "varlen-unbounded",
    message: "a variable-length path needs an upper bound (e.g. *1..5)",
  };
  if (punct(tokens[i], "*") && insideRelationship(tokens, i)) {
    let next = i + 1;
    if (tokens[next]?.kind === "number") next++;
    if (!punct(tokens[next], "..")) return tokens[next - 1] === tokens[i] ? unbounded : undefined;
    return tokens[next + 1]?.kind === "number" ? undefined : unbounded;
  }
  // A quantifier {m,} after a node or relationship pattern.
  if (
    punct(tokens[i], "{") &&
    (punct(tokens[i - 1], ")") || punct(tokens[i - 1], "-") || punct(tokens[i - 1], ">"))
  ) {
    let next = i + 1;
    if (tokens[next]?.kind === "number") next++;
    if (punct(tokens[next], ",") && punct(tokens[next + 1], "}")) return unbounded;
  }
  return undefined;
};

/** Whether the `*` at `index` is inside a relationship pattern's brackets: `-[ … ]`. */
function insideRelationship(tokens: readonly Token[], index: number): boolean {
  let depth = 0;
  for (let j = index - 1; j >= 0; j--) {
    const text = tokens[j]?.kind === "punct" ? tokens[j]?.text : undefined;
    if (text === "]" || text === ")" || text === "}") depth++;
    else if (text === "(" || text === "{") {
      if (depth === 0) return false;
      depth--;
    } else if (text === "[") {
      if (depth > 0) depth--;
      else return punct(tokens[j - 1], "-");
    }
  }
  return false;
}

const yieldStar: Rule = (tokens, i) =>
  word(tokens[i], "yield") && punct(tokens[i + 1], "*")
    ? { rule: "yield-star", message: "YIELD * is not portable: name the columns" }
    : undefined;

/** `CALL { … }` and `CALL (x) { … }`: a subquery, where a procedure call names a procedure. */
const callSubquery: Rule = (tokens, i) =>
  word(tokens[i], "call") && (punct(tokens[i + 1], "{") || punct(tokens[i + 1], "("))
    ? { rule: "call-subquery", message: "CALL { … } subqueries are not portable" }
    : undefined;

/** `[(a)-->(b) | b.name]`: a list built from a pattern. */
const pathComprehension: Rule = (tokens, i) => {
  if (!punct(tokens[i], "[")) return undefined;
  let start = i + 1;
  if (tokens[start]?.kind === "word" && punct(tokens[start + 1], "=")) start += 2;
  if (!punct(tokens[start], "(")) return undefined;
  const close = matching(tokens, start);
  if (close === undefined || !startsRelationship(tokens, close + 1)) return undefined;
  return { rule: "path-comprehension", message: "pattern comprehensions are not portable" };
};

/** `-[`, `--`, `->` or `<-` at `index`: a relationship, not a minus sign. */
function startsRelationship(tokens: readonly Token[], index: number): boolean {
  const next = tokens[index + 1];
  if (punct(tokens[index], "<")) return punct(next, "-");
  return punct(tokens[index], "-") && (punct(next, "[") || punct(next, "-") || punct(next, ">"));
}

function matching(tokens: readonly Token[], open: number): number | undefined {
  let depth = 0;
  for (let j = open; j < tokens.length; j++) {
    const text = tokens[j]?.kind === "punct" ? tokens[j]?.text : undefined;
    if (text === "(" || text === "[" || text === "{") depth++;
    else if (text === ")" || text === "]" || text === "}") {
      depth--;
      if (depth === 0) return j;
    }
  }
  return undefined;
}

const shortestPath: Rule = (tokens, i) =>
  word(tokens[i], "shortestpath", "allshortestpaths") && punct(tokens[i + 1], "(")
    ? { rule: "shortest-path", message: `${tokens[i]?.text}() is not portable` }
    : undefined;

/** `n {.name, .age}`: a map projection. */
const mapProjection: Rule = (tokens, i) =>
  punct(tokens[i], "{") && punct(tokens[i + 1], ".")
    ? { rule: "map-projection", message: "map projections are not portable" }
    : undefined;

/** The query's tokens outside comments, or what makes it untokenizable. */
function tokenize(query: string): Token[] | string {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const char = query[i] as string;
    if (/\s/.test(char)) {
      i++;
    } else if (query.startsWith("//", i)) {
      const end = query.indexOf("\n", i);
      i = end === -1 ? query.length : end + 1;
    } else if (query.startsWith("/*", i)) {
      const end = query.indexOf("*/", i + 2);
      if (end === -1) return "a /* comment is never closed";
      i = end + 2;
    } else if (char === "'" || char === '"' || char === "`") {
      const end = quotedEnd(query, i);
      if (end === undefined) return `a ${char} quote is never closed`;
      tokens.push({ kind: char === "`" ? "word" : "string", text: query.slice(i, end) });
      i = end;
    } else if (/[0-9]/.test(char)) {
      // A fraction needs a digit after its dot, so `1..5` is a number, a range, a number.
      const match = /^[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(query.slice(i));
      const text = match?.[0] ?? char;
      tokens.push({ kind: "number", text });
      i += text.length;
    } else if (/[\p{L}_$]/u.test(char)) {
      const text = /^[\p{L}\p{N}_$]+/u.exec(query.slice(i))?.[0] ?? char;
      tokens.push({ kind: "word", text });
      i += text.length;
    } else if (query.startsWith("..", i)) {
      tokens.push({ kind: "punct", text: ".." });
      i += 2;
    } else {
      tokens.push({ kind: "punct", text: char });
      i++;
    }
  }
  return tokens;
}

/** The index after the closing quote of the quoted text at `start` (a doubled ` escapes `). */
function quotedEnd(query: string, start: number): number | undefined {
  const quote = query[start];
  for (let i = start + 1; i < query.length; i++) {
    if (query[i] === "\\" && quote !== "`") i++;
    else if (query[i] === quote) {
      if (quote === "`" && query[i + 1] === "`") i++;
      else return i + 1;
    }
  }
  return undefined;
}

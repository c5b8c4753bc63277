/**
 * A small SQL tokenizer, enough to find statements, keywords and table names in plugin SQL
 * without being fooled by comments, string literals or quoted identifiers. It does not parse
 * SQL; the validators built on it accept a conservative subset and refuse the rest.
 */
export interface SqlToken {
  readonly kind: "word" | "quoted" | "string" | "number" | "punct" | "param";
  /** The source text of the token. */
  readonly text: string;
  /** Identifier value: lowercased word, or the unquoted text of a quoted identifier. */
  readonly value: string;
  readonly start: number;
  readonly end: number;
}

const WORD_START = /[A-Za-z_]/;
const WORD_PART = /[A-Za-z0-9_$]/;

/** Splits SQL into tokens, dropping whitespace and comments. */
export function tokenize(sql: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let i = 0;
  const push = (kind: SqlToken["kind"], start: number, end: number, value?: string) =>
    tokens.push({
      kind,
      text: sql.slice(start, end),
      value: value ?? sql.slice(start, end).toLowerCase(),
      start,
      end,
    });
  while (i < sql.length) {
    const c = sql[i] ?? "";
    const next = sql[i + 1] ?? "";
    if (/\s/.test(c)) {
      i++;
    } else if (c === "-" && next === "-") {
      while (i < sql.length && sql[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const close = sql.indexOf("*/", i + 2);
      i = close === -1 ? sql.length : close + 2;
    } else if (c === "'") {
      const start = i++;
      while (i < sql.length) {
        if (sql[i] === "'" && sql[i + 1] === "'") i += 2;
        else if (sql[i] === "'") break;
        else i++;
      }
      i++;
      push("string", start, Math.min(i, sql.length));
    } else if (c === '"' || c === "`" || c === "[") {
      const close = c === "[" ? "]" : c;
      const start = i++;
      let value = "";
      while (i < sql.length) {
        if (sql[i] === close && sql[i + 1] === close && close !== "]") {
          value += close;
          i += 2;
        } else if (sql[i] === close) break;
        else value += sql[i++];
      }
      i++;
      push("quoted", start, Math.min(i, sql.length), value);
    } else if (
      c === "$" &&
      /[A-Za-z_$]/.test(next) &&
      sql.indexOf("$", i + 1) !== -1 &&
      /^\$[A-Za-z_]*\$/.test(sql.slice(i))
    ) {
      // Postgres dollar quoting: $tag$ … $tag$
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i))?.[0] ?? "$$";
      const start = i;
      const close = sql.indexOf(tag, i + tag.length);
      i = close === -1 ? sql.length : close + tag.length;
      push("string", start, i);
    } else if (c === "$" && /[0-9]/.test(next)) {
      const start = i++;
      while (/[0-9]/.test(sql[i] ?? "")) i++;
      push("param", start, i);
    } else if (c === "?") {
      push("param", i, ++i);
    } else if (WORD_START.test(c)) {
      const start = i;
      while (i < sql.length && WORD_PART.test(sql[i] ?? "")) i++;
      push("word", start, i);
    } else if (/[0-9]/.test(c)) {
      const start = i;
      while (i < sql.length && /[0-9.eE]/.test(sql[i] ?? "")) i++;
      push("number", start, i);
    } else {
      push("punct", i, ++i);
    }
  }
  return tokens;
}

/**
 * Splits tokens into statements at top-level `;`. A trigger body (`BEGIN … END`) is one
 * statement even though it contains `;`.
 */
export function splitStatements(tokens: readonly SqlToken[]): SqlToken[][] {
  const statements: SqlToken[][] = [];
  let current: SqlToken[] = [];
  let blockDepth = 0;
  for (const token of tokens) {
    if (token.kind === "punct" && token.text === ";" && blockDepth === 0) {
      if (current.length > 0) statements.push(current);
      current = [];
      continue;
    }
    current.push(token);
    if (token.kind === "word" && isTrigger(current)) {
      if (token.value === "begin" || token.value === "case") blockDepth++;
      else if (token.value === "end") blockDepth = Math.max(0, blockDepth - 1);
    }
  }
  if (current.length > 0) statements.push(current);
  return statements;
}

function isTrigger(statement: readonly SqlToken[]): boolean {
  const words = statement.slice(0, 3).map((t) => t.value);
  return words[0] === "create" && (words[1] === "trigger" || words[2] === "trigger");
}

/** The identifier value of a token that can name something, else undefined. */
export function identifier(token: SqlToken | undefined): string | undefined {
  if (!token) return undefined;
  if (token.kind === "word" || token.kind === "quoted") return token.value;
  return undefined;
}

/**
 * The words of a search query, and nothing else: FTS5 and tsquery syntax (`"`, `*`, `NEAR`,
 * `AND`, `-`, `--`, `:`, parentheses) can never reach the engine, because each word is quoted
 * (FTS5) or made of letters and digits only (tsquery). At most 32 words.
 *
 * @example
 * queryTerms('"drop" * NEAR -- db') // ["drop", "near", "db"]
 */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(words)].slice(0, 32);
}

/** An FTS5 MATCH expression: any of the words, each a quoted string. */
export function fts5Match(terms: readonly string[]): string {
  return terms.map((term) => `"${term.replaceAll('"', '""')}"`).join(" OR ");
}

/** A tsquery text: any of the words (they hold letters, digits and `_` only). */
export function tsQuery(terms: readonly string[]): string {
  return terms.map((term) => `'${term.replaceAll("'", "''")}'`).join(" | ");
}

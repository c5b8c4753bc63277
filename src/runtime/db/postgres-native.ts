import type pg from "pg";

/** The part of the store's pg pool the runtime's hot paths use. */
export type PostgresPool = Pick<pg.Pool, "query">;

/** Turns `?` placeholders into `$1, $2, …` (statements are written with `?` to stay readable). */
export function numbered(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

/** SQL casts for a list of column types, as `?::type` placeholders joined by commas. */
export function castPlaceholders(types: readonly string[]): string {
  return types.map((type) => `?::${type}`).join(", ");
}

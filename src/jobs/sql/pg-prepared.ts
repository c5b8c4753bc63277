import { createHash } from "node:crypto";

/** The part of a pg pool a prepared statement needs. */
export interface PgQueryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

const names = new Map<string, string>();

/**
 * Runs `text` as a named prepared statement: each pooled connection parses and plans it once,
 * then only binds values — the job queue's hot statements skip the server's parse and plan on
 * every call. The name is derived from the text, so one name never means two statements.
 */
export async function queryPrepared<Row>(
  pool: PgQueryable,
  text: string,
  values: unknown[],
): Promise<Row[]> {
  let name = names.get(text);
  if (name === undefined) {
    name = `keel_jobs_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
    names.set(text, name);
  }
  const result = await pool.query({ name, text, values });
  return result.rows as Row[];
}

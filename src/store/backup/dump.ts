import { spawn } from "node:child_process";
import type BetterSqlite3 from "better-sqlite3";
import { KeelError } from "../../core/index.js";
import type { StoreLocation } from "../types.js";

/**
 * A SQL dump of a SQLite database, as `sqlite3`'s `.dump` writes it: each table's `CREATE`
 * statement and its rows as `INSERT`s (values written by SQLite's own `quote()`, so reals,
 * blobs and text survive exactly), then the tables' indexes and triggers, in one transaction.
 * `tables` limits it to those (NOT_FOUND, exit 5, for a name that is not a table).
 *
 * @example
 * for (const line of dumpSqlite(database)) process.stdout.write(`${line}\n`);
 */
export function* dumpSqlite(
  database: BetterSqlite3.Database,
  tables?: readonly string[],
): Generator<string> {
  // A virtual table (an FTS5 index) is dumped as its CREATE and rebuilt from its content table
  // after the data; its shadow tables are the engine's own and cannot be created by hand.
  const all = database
    .prepare(
      `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
         AND name NOT IN (SELECT name FROM pragma_table_list WHERE type = 'shadow') ORDER BY rowid`,
    )
    .all() as { name: string; sql: string }[];
  const virtual = new Set(
    database
      .prepare("SELECT name FROM pragma_table_list WHERE type = 'virtual'")
      .pluck()
      .all() as string[],
  );
  const chosen = selectTables(
    all.map((table) => table.name),
    tables,
  );
  yield "PRAGMA foreign_keys=OFF;";
  yield "BEGIN TRANSACTION;";
  for (const table of all) {
    if (!chosen.has(table.name)) continue;
    yield `${table.sql};`;
    if (virtual.has(table.name)) continue;
    const columns = (
      database.prepare("SELECT name FROM pragma_table_info(?)").pluck().all(table.name) as string[]
    ).map((name) => `quote("${name.replaceAll('"', '""')}")`);
    if (columns.length === 0) continue;
    const rows = database
      .prepare(`SELECT ${columns.join(" || ',' || ")} FROM "${table.name}"`)
      .pluck()
      .iterate() as IterableIterator<string>;
    for (const values of rows) yield `INSERT INTO "${table.name}" VALUES(${values});`;
  }
  const extras = database
    .prepare(
      "SELECT tbl_name, sql FROM sqlite_master WHERE type IN ('index', 'trigger', 'view') AND sql IS NOT NULL ORDER BY rowid",
    )
    .all() as { tbl_name: string; sql: string }[];
  for (const extra of extras) if (chosen.has(extra.tbl_name)) yield `${extra.sql};`;
  for (const name of virtual) {
    if (chosen.has(name)) yield `INSERT INTO "${name}"("${name}") VALUES('rebuild');`;
  }
  yield "COMMIT;";
}

/**
 * A SQL dump of a Postgres database through `pg_dump` (schema and data, no owners or
 * privileges), written to `out`. `tables` limits it to those. Needs `pg_dump` on the PATH
 * (STORE_UNSUPPORTED otherwise, with the remedy).
 */
export function dumpPostgres(
  location: Extract<StoreLocation, { dialect: "postgres" }>,
  out: NodeJS.WritableStream,
  tables?: readonly string[],
): Promise<void> {
  const args = [
    "--no-owner",
    "--no-privileges",
    ...(tables ?? []).flatMap((table) => ["--table", table]),
    "--dbname",
    location.url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn("pg_dump", args, { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stdout.pipe(out, { end: false });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "ENOENT"
          ? new KeelError("STORE_UNSUPPORTED", "pg_dump is not installed; it dumps Postgres.", {
              cause: error,
              hint: "Install the PostgreSQL client tools (e.g. apt-get install postgresql-client), or use `keel db backup` for a SQLite copy.",
            })
          : error,
      );
    });
    child.on("close", (code) => {
      if (code === 0) resolve();
      else
        reject(
          new KeelError("STORE_BACKUP_FAILED", `pg_dump failed (exit ${code}): ${stderr.trim()}`, {
            details: { exitCode: code },
            hint: "Check that pg_dump's version is at least the server's, and the table names.",
          }),
        );
    });
  });
}

function selectTables(
  names: readonly string[],
  wanted: readonly string[] | undefined,
): Set<string> {
  if (wanted === undefined || wanted.length === 0) return new Set(names);
  const missing = wanted.filter((name) => !names.includes(name));
  if (missing.length > 0) {
    throw new KeelError("NOT_FOUND", `No table named ${missing.join(", ")} in this database.`, {
      details: { missing },
      hint: "List the tables with `keel db dump | grep '^CREATE TABLE'`, or omit --tables.",
    });
  }
  return new Set(wanted);
}

import { CompiledQuery, type Kysely } from "kysely";
import { KeelError } from "../../core/index.js";
import type { KernelDatabase } from "../schema.js";
import type { StoreDialectName } from "../types.js";
import { ScopedDbViolationError } from "./errors.js";
import { rename } from "./plugin-migration-sql.js";
import { PLUGIN_SQL_RULES, type PluginSqlRule } from "./plugin-sql-rules.js";
import { type SqlToken, splitStatements, tokenize } from "./sql-tokens.js";
import { cteNames, tableReferences } from "./table-references.js";

/** A row as a plugin reads it. */
export type PluginRow = Record<string, unknown>;

/**
 * The scoped connection a `dedicated`-storage plugin receives (protection 3 of seed 004): not a
 * raw handle. Every statement is checked before it runs; one that names a table outside the
 * plugin's prefix, or is DDL, ATTACH, PRAGMA or transaction control, is refused with a
 * ScopedDbViolationError and nothing runs. Logical table names (from `storage.tables`) are
 * rewritten to their prefixed names. Placeholders are `?` on both dialects.
 *
 * @example
 * await db.execute("INSERT INTO notes (id, body) VALUES (?, ?)", ["n1", "hello"]);
 * const rows = await db.query<{ body: string }>("SELECT body FROM notes WHERE id = ?", ["n1"]);
 */
export interface ScopedDatabase {
  /** Runs a SELECT (or any statement with RETURNING) and returns its rows. */
  query<T extends PluginRow = PluginRow>(
    sql: string,
    parameters?: readonly unknown[],
  ): Promise<T[]>;
  /** Runs an INSERT, UPDATE or DELETE and returns how many rows it changed. */
  execute(sql: string, parameters?: readonly unknown[]): Promise<{ rowsAffected: number }>;
  /** Runs `fn` in one transaction; nested calls are refused. */
  transaction<T>(fn: (db: ScopedDatabase) => Promise<T>): Promise<T>;
}

/** What a dedicated-storage plugin's `ctx.store` is. */
export interface DedicatedStore {
  readonly db: ScopedDatabase;
}

interface Scope {
  readonly pluginId: string;
  readonly prefix: string;
  readonly tables: ReadonlySet<string>;
  readonly dialect: StoreDialectName;
}

/** Builds the scoped connection of one plugin over the store's Kysely instance. */
export function createScopedDatabase(
  kysely: Kysely<KernelDatabase>,
  scope: Scope,
  inTransaction = false,
): ScopedDatabase {
  const run = async (sql: string, parameters: readonly unknown[]) => {
    const compiled = CompiledQuery.raw(checkScopedSql(sql, scope), [...parameters]);
    return kysely.executeQuery<PluginRow>(compiled);
  };
  return {
    async query<T extends PluginRow = PluginRow>(sql: string, parameters: readonly unknown[] = []) {
      return (await run(sql, parameters)).rows as T[];
    },
    async execute(sql, parameters = []) {
      const result = await run(sql, parameters);
      return { rowsAffected: Number(result.numAffectedRows ?? 0n) };
    },
    async transaction(fn) {
      if (inTransaction) {
        throw new ScopedDbViolationError(
          "nested-transaction",
          `Plugin "${scope.pluginId}": ${PLUGIN_SQL_RULES["nested-transaction"]}; use the transaction you are in.`,
        );
      }
      return kysely.transaction().execute((tx) => fn(createScopedDatabase(tx, scope, true)));
    },
  };
}

/**
 * Checks one plugin statement against its scope and returns the SQL to run (logical names
 * prefixed, `?` turned into `$n` on Postgres). Throws ScopedDbViolationError naming the rule.
 */
export function checkScopedSql(sql: string, scope: Scope): string {
  const refuse = (rule: PluginSqlRule, subject?: string): never => {
    throw new ScopedDbViolationError(
      rule,
      `Plugin "${scope.pluginId}": ${PLUGIN_SQL_RULES[rule]}${subject ? ` (${subject})` : ""} [rule: ${rule}].`,
      { details: { pluginId: scope.pluginId, subject: subject ?? null } },
    );
  };
  const tokens = tokenize(sql);
  const statements = splitStatements(tokens);
  if (statements.length !== 1) {
    if (statements.length === 0) throw new KeelError("INVALID_ARGUMENT", "Empty SQL statement.");
    refuse("multiple-statements");
  }
  const first = tokens[0]?.value ?? "";
  if (first === "attach" || first === "detach") refuse("attach");
  if (first === "pragma") refuse("global-pragma", tokens[1]?.text);
  if (["create", "alter", "drop", "truncate", "reindex", "vacuum", "analyze"].includes(first))
    refuse("ddl", first.toUpperCase());
  if (["begin", "commit", "end", "rollback", "savepoint", "release"].includes(first))
    refuse("transaction-control");
  if (!["select", "with", "insert", "update", "delete", "replace", "values"].includes(first)) {
    refuse("unsupported-statement", tokens[0]?.text);
  }
  const ctes = cteNames(tokens);
  const replacements: { token: SqlToken; text: string }[] = [];
  for (const ref of tableReferences(tokens)) {
    if (ref.qualified) refuse("schema-qualified", ref.name);
    if (ref.isFunction) {
      if (ref.name.startsWith("pragma_")) refuse("global-pragma", ref.name);
      continue;
    }
    if (ctes.has(ref.name) || ref.name.startsWith(scope.prefix)) continue;
    if (!scope.tables.has(ref.name)) refuse("foreign-table", ref.name);
    const token = tokens[ref.index];
    if (token) replacements.push({ token, text: rename(ref.name, "table", scope.prefix) });
  }
  if (scope.dialect === "postgres") {
    let n = 0;
    for (const token of tokens)
      if (token.kind === "param" && token.text === "?")
        replacements.push({ token, text: `$${++n}` });
  }
  let out = sql;
  for (const { token, text } of replacements.sort((a, b) => b.token.start - a.token.start)) {
    out = out.slice(0, token.start) + text + out.slice(token.end);
  }
  return out;
}

import { CompiledQuery, type Kysely } from "kysely";
import { KeelError } from "../../core/index.js";
import type { KernelDatabase } from "../schema.js";
import type { StoreDialectName } from "../types.js";
import { ScopedDbViolationError } from "./errors.js";
import { forbiddenFunctionCall } from "./forbidden-functions.js";
import { rename } from "./plugin-migration-sql.js";
import { ownsTable, type PluginNamespace } from "./plugin-namespace.js";
import { isKernelName, PLUGIN_SQL_RULES, type PluginSqlRule } from "./plugin-sql-rules.js";
import { identifier, type SqlToken, splitStatements, tokenize } from "./sql-tokens.js";
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

/** Whose connection it is: the plugin's namespace (its declared tables) and the dialect. */
export interface ScopedSqlScope extends PluginNamespace {
  readonly dialect: StoreDialectName;
  /**
   * The database's tables and views, when known: any the plugin does not own is refused
   * wherever the statement names it, not only where a table is expected.
   */
  readonly relations?: ReadonlySet<string>;
}

/** How the connection learns, once, what else must not be named; and checks it may run. */
export interface ScopedDatabaseOptions {
  /** Called before the first statement: throws when the plugin may not use its storage. */
  readonly ready?: () => Promise<void>;
  /** The database's relation names (read once, before the first statement). */
  readonly relations?: () => Promise<ReadonlySet<string>>;
}

/** Builds the scoped connection of one plugin over the store's Kysely instance. */
export function createScopedDatabase(
  kysely: Kysely<KernelDatabase>,
  scope: ScopedSqlScope,
  options: ScopedDatabaseOptions = {},
): ScopedDatabase {
  let prepared: Promise<ScopedSqlScope> | undefined;
  const prepare = () => {
    prepared ??= (async () => {
      await options.ready?.();
      return options.relations ? { ...scope, relations: await options.relations() } : scope;
    })();
    // A failed check is not cached: the next call asks again.
    prepared.catch(() => {
      prepared = undefined;
    });
    return prepared;
  };
  return scopedOn(kysely, prepare, false);
}

function scopedOn(
  kysely: Kysely<KernelDatabase>,
  prepare: () => Promise<ScopedSqlScope>,
  inTransaction: boolean,
): ScopedDatabase {
  const run = async (sql: string, parameters: readonly unknown[]) => {
    const scope = await prepare();
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
      const scope = await prepare();
      if (inTransaction) {
        throw new ScopedDbViolationError(
          "nested-transaction",
          `Plugin "${scope.pluginId}": ${PLUGIN_SQL_RULES["nested-transaction"]}; use the transaction you are in.`,
        );
      }
      return kysely.transaction().execute((tx) => fn(scopedOn(tx, prepare, true)));
    },
  };
}

/**
 * Checks one plugin statement against its scope and returns the SQL to run (logical names
 * prefixed, `?` turned into `$n` on Postgres). Throws ScopedDbViolationError naming the rule.
 */
export function checkScopedSql(sql: string, scope: ScopedSqlScope): string {
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
  if (
    !["select", "with", "insert", "update", "delete", "replace", "values", "table"].includes(first)
  ) {
    refuse("unsupported-statement", tokens[0]?.text);
  }
  const call = forbiddenFunctionCall(tokens);
  if (call) refuse("forbidden-function", `${call.name}: ${call.why}`);
  // Not the plugin's, wherever it is named: a relation of the database, or an engine catalog.
  const foreign = (name: string) =>
    !ownsTable(scope, name) && (scope.relations?.has(name) === true || /^(sqlite|pg)_/.test(name));
  const ctes = cteNames(tokens);
  for (const name of ctes) {
    // A WITH name may not stand in for a table the plugin does not own (and read it inside).
    if (
      foreign(name) ||
      isKernelName(name) ||
      (name.startsWith("plugin_") && !ownsTable(scope, name))
    )
      refuse("foreign-table", `${name}, as a WITH name`);
  }
  const replacements: { token: SqlToken; text: string }[] = [];
  for (const ref of tableReferences(tokens)) {
    if (ref.qualified) refuse("schema-qualified", ref.name);
    if (ref.isFunction) {
      if (ref.name.startsWith("pragma_")) refuse("global-pragma", ref.name);
      continue;
    }
    if (ctes.has(ref.name)) continue;
    if (!ownsTable(scope, ref.name)) refuse("foreign-table", ref.name);
    const token = tokens[ref.index];
    if (token && !ref.name.startsWith(scope.prefix))
      replacements.push({ token, text: rename(ref.name, "table", scope.prefix) });
  }
  tokens.forEach((token, at) => {
    const name = identifier(token);
    // A function's name is checked above; after a dot it is a column (`t.name`).
    if (name === undefined || tokens[at + 1]?.text === "(" || tokens[at - 1]?.text === ".") return;
    if (!ctes.has(name) && foreign(name)) refuse("foreign-table", name);
  });
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

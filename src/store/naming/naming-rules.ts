import type { SchemaSnapshot, TableSnapshot } from "../dialects/schema-snapshot.js";
import { isPlural, singulars } from "./english.js";

/** One breach of seed 004's naming conventions. */
export interface NamingProblem {
  readonly table: string;
  /** The column, index or constraint concerned, when the rule is about one. */
  readonly object: string | null;
  /** Stable rule id, e.g. `table-zone-prefix`, `timestamp-integer`. */
  readonly rule: NamingRule;
  readonly message: string;
}

export type NamingRule =
  | "table-zone-prefix"
  | "table-plural"
  | "snake-case"
  | "primary-key-id"
  | "foreign-key-name"
  | "timestamp-integer"
  | "duration-integer"
  | "count-integer"
  | "json-text"
  | "hash-text"
  | "boolean-prefix"
  | "enum-kebab-case"
  | "index-name"
  | "constraint-name"
  | "sql-keyword-case";

/** Which tables a check applies to and what their names must start with. */
export interface NamingScope {
  /** Table-name prefixes allowed (kernel: `scan_`, `state_`, `config_`; a plugin: `plugin_<id>_`). */
  readonly tablePrefixes: readonly string[];
  /** Only tables whose names start with one of these are checked (default: every table). */
  readonly only?: readonly string[];
}

/** The kernel's zones. */
export const KERNEL_NAMING: NamingScope = { tablePrefixes: ["scan_", "state_", "config_"] };

/**
 * Where the seed's own catalog departs from its conventions, kept explicit so the check stays
 * strict for everything else. Tables keyed by a natural key (and the audit log, by its place in
 * the hash chain)…
 */
const SEED_PRIMARY_KEYS: Readonly<Record<string, string>> = {
  scan_nodes: "path",
  config_plugins: "plugin_id",
  config_preferences: "key",
  // The audit log is keyed by its place in the hash chain (its `id` stays unique): on SQLite
  // that key is the rowid, one b-tree less per append (migration 011).
  state_audit_events: "seq",
};

/** …table names the seed gives in the singular (mass nouns)… */
const SEED_SINGULAR_TABLES = new Set(["state_enrichment", "state_plugin_kv"]);

/**
 * …and the seed's index named for what it detects, not its four columns; and the thread
 * listing's covering index (migration 026), whose five column names pass Postgres's
 * 63-character identifier limit.
 */
const SEED_INDEX_NAMES = new Set([
  "ix_state_jobs_action_node_hash",
  "ix_state_threads_updated_at_id_covering",
]);

const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const INTEGER_TYPES = /^(INTEGER|INT|INT2|INT4|INT8|BIGINT|SMALLINT)$/;
const TEXT_TYPES = /^(TEXT|VARCHAR.*|CHARACTER VARYING.*)$/;
const JSON_TYPES = /^(TEXT|JSON|JSONB)$/;

/**
 * Checks a live schema against seed 004's naming rules: zone prefixes, plural snake_case table
 * names, `id` primary keys, `<referenced_table_singular>_id` foreign keys, `_at` integer
 * milliseconds, integer `_seconds`/`_ms`/`_count`, `_json` and `_hash` text, `is_`/`has_`
 * booleans, kebab-case enum values in CHECKs, `ix_<table>_<columns>` indexes and
 * `ck_`/`uq_`/`fk_` constraints. (UPPERCASE keywords are a rule of SQL text: see
 * `checkSqlKeywordCase`.) Returns every problem; empty means conforming.
 *
 * A table whose single-column primary key is also its foreign key to another table (a 1:1
 * extension, such as `state_run_documents` of `state_runs`) names that column as a foreign key,
 * `<table_singular>_id`, as the seed itself keys `config_plugins` by `plugin_id`.
 *
 * @example
 * const problems = checkNamingRules(await introspect(db), KERNEL_NAMING);
 */
export function checkNamingRules(snapshot: SchemaSnapshot, scope: NamingScope): NamingProblem[] {
  const problems: NamingProblem[] = [];
  for (const table of snapshot.tables) {
    if (scope.only && !scope.only.some((prefix) => table.name.startsWith(prefix))) continue;
    problems.push(...checkTable(table, scope));
  }
  return problems;
}

function checkTable(table: TableSnapshot, scope: NamingScope): NamingProblem[] {
  const problems: NamingProblem[] = [];
  const add = (object: string | null, rule: NamingRule, message: string) =>
    problems.push({ table: table.name, object, rule, message });
  const logical = (name: string) => withoutPrefix(name, scope);

  if (!scope.tablePrefixes.some((prefix) => table.name.startsWith(prefix))) {
    add(
      null,
      "table-zone-prefix",
      `table ${table.name} must start with ${scope.tablePrefixes.join(", ")}`,
    );
  }
  if (!SNAKE.test(table.name)) add(null, "snake-case", `table ${table.name} is not snake_case`);
  if (!SEED_SINGULAR_TABLES.has(table.name) && !isPlural(logical(table.name))) {
    add(null, "table-plural", `table ${table.name} must be named in the plural`);
  }
  const keyedBy = (column: string) =>
    table.foreignKeys.find((fk) => fk.columns.length === 1 && fk.columns[0] === column);
  if (table.primaryKey.length === 1) {
    const key = table.primaryKey[0] ?? "";
    const expected = SEED_PRIMARY_KEYS[table.name] ?? "id";
    // A 1:1 extension keyed by its parent's id names the key as the foreign key it is.
    if (key !== expected && !keyedBy(key)) {
      add(
        key,
        "primary-key-id",
        `the primary-key column of ${table.name} must be named ${expected}`,
      );
    }
  }
  for (const fk of table.foreignKeys) {
    if (fk.columns.length !== 1) continue;
    const column = fk.columns[0] ?? "";
    const names = singulars(logical(fk.table)).map((singular) => `${singular}_id`);
    if (!names.some((name) => column === name || column.endsWith(`_${name}`))) {
      add(
        column,
        "foreign-key-name",
        `${table.name}.${column} references ${fk.table} and must be named ${names[0]} (or <role>_${names[0]})`,
      );
    }
  }
  for (const column of table.columns) {
    const name = column.name;
    const type = column.type.replace(/\(.*\)$/, "").trim();
    if (!SNAKE.test(name))
      add(name, "snake-case", `column ${table.name}.${name} is not snake_case`);
    if (name.endsWith("_at") && !INTEGER_TYPES.test(type)) {
      add(
        name,
        "timestamp-integer",
        `${table.name}.${name} is a timestamp (_at) and must be an integer of Unix milliseconds, not ${column.type}`,
      );
    }
    if ((name.endsWith("_seconds") || name.endsWith("_ms")) && !INTEGER_TYPES.test(type)) {
      add(
        name,
        "duration-integer",
        `${table.name}.${name} is a duration and must be an integer, not ${column.type}`,
      );
    }
    if (name.endsWith("_count") && !INTEGER_TYPES.test(type)) {
      add(
        name,
        "count-integer",
        `${table.name}.${name} is a count and must be an integer, not ${column.type}`,
      );
    }
    if (name.endsWith("_json") && !JSON_TYPES.test(type)) {
      add(
        name,
        "json-text",
        `${table.name}.${name} holds JSON and must be TEXT (or jsonb on Postgres), not ${column.type}`,
      );
    }
    if (name.endsWith("_hash") && !TEXT_TYPES.test(type)) {
      add(
        name,
        "hash-text",
        `${table.name}.${name} is a hash and must be TEXT (lowercase hex), not ${column.type}`,
      );
    }
    if ((type === "BOOLEAN" || type === "BOOL") && !/^(is|has)_/.test(name)) {
      add(name, "boolean-prefix", `boolean ${table.name}.${name} must be named is_… or has_…`);
    }
  }
  for (const index of table.indexes) {
    const named = `ix_${table.name}_${index.columns.join("_")}`;
    const expression = index.columns.some((column) => !SNAKE.test(column));
    const ok = SEED_INDEX_NAMES.has(index.name)
      ? true
      : expression
        ? index.name.startsWith(`ix_${table.name}_`)
        : index.name === named;
    if (!ok) {
      add(
        index.name,
        "index-name",
        `index ${index.name} on ${table.name} (${index.columns.join(", ")}) must be named ${expression ? `ix_${table.name}_<columns>` : named}`,
      );
    }
  }
  const prefixes = { check: "ck_", unique: "uq_", "foreign-key": "fk_" } as const;
  for (const constraint of table.constraints) {
    const prefix = prefixes[constraint.kind];
    if (constraint.name === null || !constraint.name.startsWith(prefix)) {
      add(
        constraint.name,
        "constraint-name",
        `${constraint.kind} constraint ${constraint.name ?? "(unnamed)"} on ${table.name} must be named ${prefix}…`,
      );
    }
    const values = [...(constraint.definition ?? "").matchAll(/'((?:[^']|'')*)'/g)].map(
      (match) => match[1] ?? "",
    );
    const bad = values.filter((value) => !KEBAB.test(value));
    if (bad.length > 0) {
      add(
        constraint.name,
        "enum-kebab-case",
        `${constraint.name ?? "a CHECK"} on ${table.name} allows values that are not kebab-case lowercase: ${bad.map((v) => `'${v}'`).join(", ")}`,
      );
    }
  }
  return problems;
}

/** A table name without its zone or plugin prefix: `state_runs` → `runs`. */
function withoutPrefix(name: string, scope: NamingScope): string {
  const prefixes = [...scope.tablePrefixes, ...KERNEL_NAMING.tablePrefixes].sort(
    (a, b) => b.length - a.length,
  );
  const prefix = prefixes.find((p) => name.startsWith(p));
  return prefix ? name.slice(prefix.length) : name;
}

import type { SchemaSnapshot, TableSnapshot } from "../dialects/schema-snapshot.js";

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
  | "snake-case"
  | "primary-key-id"
  | "timestamp-integer"
  | "duration-integer"
  | "count-integer"
  | "json-text"
  | "hash-text"
  | "boolean-prefix"
  | "index-name"
  | "constraint-name";

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
 * strict for everything else: tables keyed by a natural key, and 0/1 columns the seed names
 * without `is_`/`has_`.
 */
const SEED_PRIMARY_KEYS: Readonly<Record<string, string>> = {
  scan_nodes: "path",
  config_plugins: "plugin_id",
  config_preferences: "key",
};

const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const INTEGER_TYPES = /^(INTEGER|INT|INT2|INT4|INT8|BIGINT|SMALLINT)$/;
const TEXT_TYPES = /^(TEXT|VARCHAR.*|CHARACTER VARYING.*)$/;
const JSON_TYPES = /^(TEXT|JSON|JSONB)$/;

/**
 * Checks a live schema against seed 004's naming rules (zones, snake_case, `_at` integer
 * milliseconds, `_json` text, `_hash` text, `is_`/`has_` booleans, `ix_<table>_…` indexes,
 * `ck_`/`uq_`/`fk_` constraints). Returns every problem; empty means conforming.
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

  if (!scope.tablePrefixes.some((prefix) => table.name.startsWith(prefix))) {
    add(
      null,
      "table-zone-prefix",
      `table ${table.name} must start with ${scope.tablePrefixes.join(", ")}`,
    );
  }
  if (!SNAKE.test(table.name)) add(null, "snake-case", `table ${table.name} is not snake_case`);
  if (table.primaryKey.length === 1) {
    const expected = SEED_PRIMARY_KEYS[table.name] ?? "id";
    if (table.primaryKey[0] !== expected) {
      add(
        table.primaryKey[0] ?? null,
        "primary-key-id",
        `the primary-key column of ${table.name} must be named ${expected}`,
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
    if (!index.name.startsWith(`ix_${table.name}_`)) {
      add(index.name, "index-name", `index ${index.name} must be named ix_${table.name}_<columns>`);
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
  }
  return problems;
}

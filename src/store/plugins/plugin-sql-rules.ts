/**
 * The rules plugin SQL is held to (seed 004, "Triple protection for mode B"), with the words a
 * refusal uses. Each refusal names its rule so a plugin author knows what to change.
 */
export const PLUGIN_SQL_RULES = {
  attach:
    "ATTACH and DETACH are forbidden: a plugin works inside the kernel database, in its own tables only",
  "global-pragma":
    "PRAGMA statements are forbidden: they change the whole database, not the plugin's tables",
  "foreign-key-to-kernel":
    "a plugin table may not declare a foreign key to a table it does not own",
  "trigger-on-kernel-table": "a plugin may not create a trigger on a table it does not own",
  "trigger-body-foreign-table": "a plugin trigger may only read and write the plugin's own tables",
  "drop-kernel-table": "a plugin may not DROP a table, index, view or trigger it does not own",
  "alter-kernel-table": "a plugin may not ALTER a table it does not own",
  "index-on-kernel-table": "a plugin may not create an index on a table it does not own",
  "inherit-foreign-table":
    "a plugin table may not inherit from, be a partition of, or copy (LIKE) a table it does not own",
  "kernel-schema-changed":
    "a plugin migration may change only the plugin's own tables; it changed others, so it was rolled back",
  "foreign-table": "a plugin may only use tables under its own prefix",
  "undeclared-table": "every table a plugin creates must be listed in plugin.json storage.tables",
  "schema-qualified":
    "schema-qualified names (schema.table) are forbidden: a plugin uses its own tables only",
  "transaction-control":
    "transaction statements are forbidden: the kernel wraps each migration in its own transaction",
  ddl: "DDL (CREATE, ALTER, DROP, TRUNCATE) is forbidden at run time: change the schema with a new migration",
  "forbidden-function":
    "this function is forbidden in plugin SQL: it runs SQL text, reaches files or other databases, changes settings or takes the kernel's locks",
  "multiple-statements": "one statement per call",
  "nested-transaction": "nested transactions are not supported",
  "unsupported-statement": "this kind of statement is not allowed in plugin SQL",
  naming: "plugin tables must follow the kernel's naming rules",
} as const;

export type PluginSqlRule = keyof typeof PLUGIN_SQL_RULES;

/** Names of the kernel's zones and the engines' own catalogs, for clearer messages. */
export function isKernelName(name: string): boolean {
  return /^(scan|state|config)_/.test(name) || /^(sqlite_|pg_|information_schema)/.test(name);
}

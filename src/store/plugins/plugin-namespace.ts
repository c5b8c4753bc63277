/**
 * The tables a `dedicated`-storage plugin owns: exactly those it declares in
 * `storage.tables`, under its prefix `plugin_<normalized id>_`. Not every name that starts
 * with the prefix: plugin `acme` (`plugin_acme_`) must never own `plugin_acme_b_notes` of
 * plugin `acme-b`.
 */
export interface PluginNamespace {
  readonly pluginId: string;
  /** `plugin_<normalized id>_`. */
  readonly prefix: string;
  /** Logical table names from the manifest, without the prefix. */
  readonly tables: ReadonlySet<string>;
}

/** Whether `name` (logical, or already prefixed) is one of the plugin's declared tables. */
export function ownsTable(namespace: PluginNamespace, name: string): boolean {
  if (namespace.tables.has(name)) return true;
  return (
    name.startsWith(namespace.prefix) && namespace.tables.has(name.slice(namespace.prefix.length))
  );
}

/**
 * Whether an index name belongs to one of the plugin's tables: `ix_<table>_…` with the logical
 * or the prefixed table name.
 */
export function ownsIndexName(namespace: PluginNamespace, name: string): boolean {
  let rest = name.startsWith("ix_") ? name.slice(3) : name;
  if (rest.startsWith(namespace.prefix)) rest = rest.slice(namespace.prefix.length);
  return [...namespace.tables].some((table) => rest === table || rest.startsWith(`${table}_`));
}

export {
  KvKeyInvalidError,
  KvOperationFailedError,
  KvValueNotSerializableError,
  KvValueTooLargeError,
  PluginForbiddenSqlError,
  ScopedDbViolationError,
} from "./errors.js";
export {
  createKvStore,
  KV_MAX_KEY_BYTES,
  KV_MAX_VALUE_BYTES,
  type KvEntry,
  type KvScope,
  type KvStore,
} from "./kv-store.js";
export {
  type DiscoveredPlugin,
  discoverPlugins,
  PluginManifest,
  PluginStorage,
  SPEC_VERSION,
} from "./manifest.js";
export { normalizePluginId, pluginTablePrefix } from "./plugin-id.js";
export { type PluginSqlContext, rewritePluginMigration } from "./plugin-migration-sql.js";
export { migratePlugins, type PluginMigrateOptions } from "./plugin-migrations.js";
export { PLUGIN_SQL_RULES, type PluginSqlRule } from "./plugin-sql-rules.js";
export {
  discoverStorePlugins,
  migrateStorePlugins,
  pluginStorage,
  pluginsDir,
} from "./plugin-storage.js";
export {
  checkScopedSql,
  createScopedDatabase,
  type DedicatedStore,
  type PluginRow,
  type ScopedDatabase,
  type ScopedDatabaseOptions,
  type ScopedSqlScope,
} from "./scoped-db.js";

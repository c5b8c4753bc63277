export {
  type DiscoveredPlugin,
  type DiscoverOptions,
  discoverPlugins,
  keelDirPluginFolders,
  PLUGIN_FOLDERS,
  type PluginSettings,
  type PluginStatus,
  pluginFolders,
  type ResolvedPluginSettings,
  resolvePluginSettings,
  type SettingSource,
} from "./discover.js";
export {
  KvKeyInvalidError,
  KvOperationFailedError,
  KvValueNotSerializableError,
  KvValueTooLargeError,
  PluginForbiddenSqlError,
  ScopedDbViolationError,
} from "./errors.js";
export { PLUGIN_SETTINGS_FILES, readPluginFileSettings } from "./file-settings.js";
export {
  createKvStore,
  KV_MAX_KEY_BYTES,
  KV_MAX_VALUE_BYTES,
  type KvEntry,
  type KvScope,
  type KvStore,
} from "./kv-store.js";
export { manifestProblems, PluginManifest, PluginStorage, SPEC_VERSION } from "./manifest.js";
export { normalizePluginId, pluginTablePrefix } from "./plugin-id.js";
export { type PluginSqlContext, rewritePluginMigration } from "./plugin-migration-sql.js";
export { migratePlugins, type PluginMigrateOptions } from "./plugin-migrations.js";
export { PLUGIN_SQL_RULES, type PluginSqlRule } from "./plugin-sql-rules.js";
export {
  type PluginState,
  type PluginSwitchRow,
  pluginLoadProblem,
  readPluginState,
} from "./plugin-state.js";
export {
  discoverStorePlugins,
  migrateStorePlugins,
  pluginStorage,
  pluginsDir,
  storePluginFolders,
} from "./plugin-storage.js";
export { setPluginEnabled } from "./plugin-switch.js";
export {
  checkScopedSql,
  createScopedDatabase,
  type DedicatedStore,
  type PluginRow,
  type ScopedDatabase,
  type ScopedDatabaseOptions,
  type ScopedSqlScope,
} from "./scoped-db.js";

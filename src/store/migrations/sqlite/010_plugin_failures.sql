-- Plugins whose migrations failed (seed 004: "A failing plugin migration disables only that
-- plugin; status load-error"). A row is written when a plugin's migration fails and removed when
-- its migrations next apply cleanly, so every process, `keel doctor` and the plugin loaders
-- see the plugin as load-error until then. `id` is the plugin's id: one row per failing plugin.
CREATE TABLE state_plugin_failures (
  id TEXT NOT NULL,
  reason TEXT NOT NULL,
  failed_at INTEGER NOT NULL,
  CONSTRAINT pk_state_plugin_failures PRIMARY KEY (id)
);

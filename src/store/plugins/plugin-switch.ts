import type { Store } from "../types.js";

/**
 * Records the user's switch for a plugin in `config_plugins` (the seed's "user-toggled
 * enable/disable overrides"): one upsert, keeping the row's `config_json`. The row wins over a
 * config file's `plugins.<id>.enabled` (see `resolvePluginSettings`). The plugin's folder and data
 * are left as they are.
 *
 * @example
 * await setPluginEnabled(store, "vault", false); // `keel plugins disable vault`
 */
export async function setPluginEnabled(
  store: Store,
  pluginId: string,
  enabled: boolean,
  now: number = Date.now(),
): Promise<void> {
  const flag = enabled ? 1 : 0;
  await store.kysely
    .insertInto("config_plugins")
    .values({ plugin_id: pluginId, enabled: flag, updated_at: now })
    .onConflict((conflict) =>
      conflict.column("plugin_id").doUpdateSet({ enabled: flag, updated_at: now }),
    )
    .execute();
}

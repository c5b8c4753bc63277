import type { PluginManifest } from "./manifest.js";
import type { PluginFailure } from "./plugin-failures.js";

/** One `config_plugins` row: the user's switch and config for a plugin, in this database. */
export interface PluginSwitchRow {
  readonly enabled: boolean;
  /** `config_json` parsed; null when the column is NULL (or not a JSON object). */
  readonly config: Readonly<Record<string, unknown>> | null;
}

/** What the database says about the scope's plugins: switched off, failing, how far migrated. */
export interface PluginState {
  /** Ids whose `config_plugins` row has `enabled = 0`. */
  readonly disabled: ReadonlySet<string>;
  /** Every `config_plugins` row by plugin id (`keel plugins enable|disable` writes them). */
  readonly switches: ReadonlyMap<string, PluginSwitchRow>;
  readonly failures: ReadonlyMap<string, PluginFailure>;
  /** Highest applied migration per plugin id. */
  readonly applied: ReadonlyMap<string, number>;
}

/**
 * Why a plugin may not be loaded now, or null: the user switched it off (`disabled`), its last
 * migration failed, or its tables are behind its migrations (`load-error`): its code would meet
 * a schema it does not expect.
 */
export function pluginLoadProblem(
  manifest: PluginManifest,
  state: PluginState,
): { status: "disabled" | "load-error"; reason: string } | null {
  if (state.disabled.has(manifest.id)) {
    return { status: "disabled", reason: "disabled by the user (config_plugins)" };
  }
  const failure = state.failures.get(manifest.id);
  if (failure) return { status: "load-error", reason: `its migration failed: ${failure.reason}` };
  const storage = manifest.storage;
  if (storage?.mode === "dedicated") {
    const applied = state.applied.get(manifest.id) ?? 0;
    if (applied < storage.migrations.length) {
      return {
        status: "load-error",
        reason: `its migrations are applied up to ${applied} of ${storage.migrations.length}: run \`keel db migrate\``,
      };
    }
  }
  return null;
}

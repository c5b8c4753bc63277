import type { StoreBackend } from "../dialects/backend.js";
import { highestVersion, readLedger } from "../migrate/ledger.js";
import { internalsOf } from "../open-store.js";
import type { Store } from "../types.js";
import type { PluginManifest } from "./manifest.js";
import { type PluginFailure, readPluginFailures } from "./plugin-failures.js";

/** What the database says about the scope's plugins: switched off, failing, how far migrated. */
export interface PluginState {
  readonly disabled: ReadonlySet<string>;
  readonly failures: ReadonlyMap<string, PluginFailure>;
  /** Highest applied migration per plugin id. */
  readonly applied: ReadonlyMap<string, number>;
}

/** Reads the plugins' durable state (each part empty when its table does not exist yet). */
export function readPluginState(store: Store): Promise<PluginState> {
  return readPluginStateOf(internalsOf(store).backend);
}

/** `readPluginState` on the engine port (for `keel doctor`, which opens no Store). */
export async function readPluginStateOf(backend: StoreBackend): Promise<PluginState> {
  const db = backend.kysely;
  const disabled = (await backend.tableExists(db, "config_plugins"))
    ? await db.selectFrom("config_plugins").select("plugin_id").where("enabled", "=", 0).execute()
    : [];
  const ledger = await readLedger(backend, db, { scope: "plugin" });
  const owners = new Set(ledger.map((entry) => entry.ownerId));
  return {
    disabled: new Set(disabled.map((row) => row.plugin_id)),
    failures: await readPluginFailures(backend),
    applied: new Map(
      [...owners].map((owner) => [
        owner,
        highestVersion(ledger.filter((entry) => entry.ownerId === owner)),
      ]),
    ),
  };
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

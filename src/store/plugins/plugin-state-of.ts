import { parseJsonObject } from "../../core/index.js";
import type { StoreBackend } from "../dialects/backend.js";
import { highestVersion, readLedger } from "../migrate/ledger.js";
import type { PluginState, PluginSwitchRow } from "./load-problem.js";
import { readPluginFailures } from "./plugin-failures.js";

/** `readPluginState` on the engine port (for `keel doctor`, which opens no Store). */
export async function readPluginStateOf(backend: StoreBackend): Promise<PluginState> {
  const db = backend.kysely;
  const rows = (await backend.tableExists(db, "config_plugins"))
    ? await db
        .selectFrom("config_plugins")
        .select(["plugin_id", "enabled", "config_json"])
        .execute()
    : [];
  const switches = new Map<string, PluginSwitchRow>(
    rows.map((row) => [
      row.plugin_id,
      {
        enabled: Number(row.enabled) !== 0,
        config: row.config_json === null ? null : (parseJsonObject(row.config_json) ?? null),
      },
    ]),
  );
  const ledger = await readLedger(backend, db, { scope: "plugin" });
  const owners = new Set(ledger.map((entry) => entry.ownerId));
  return {
    disabled: new Set([...switches].filter(([, row]) => !row.enabled).map(([id]) => id)),
    switches,
    failures: await readPluginFailures(backend),
    applied: new Map(
      [...owners].map((owner) => [
        owner,
        highestVersion(ledger.filter((entry) => entry.ownerId === owner)),
      ]),
    ),
  };
}

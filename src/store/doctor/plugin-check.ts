import type { StoreBackend } from "../dialects/backend.js";
import type { DiscoveredPlugin } from "../plugins/discover.js";
import { migratePlugins } from "../plugins/plugin-migrations.js";
import type { CheckOutcome } from "./job-checks.js";

/**
 * Plugins in `invalid-manifest`, `incompatible-spec` or `load-error` (a recorded failure, or
 * migrations a dry run refuses), then pending plugin migrations. Each broken plugin gets the
 * remedies that work today: fix it, remove its folder, or switch it off (`keel plugins disable`).
 */
export async function pluginCheck(
  backend: StoreBackend,
  found: readonly DiscoveredPlugin[],
): Promise<CheckOutcome> {
  const results = await migratePlugins(backend, found, { dryRun: true });
  const broken = [
    ...found
      .filter((p) => p.status !== "enabled" && p.status !== "disabled")
      .map((p) => ({ id: p.id, path: p.path, status: p.status, reason: p.statusReason })),
    ...results
      .filter(
        (r) =>
          r.status === "load-error" &&
          found.some((p) => p.id === r.pluginId && p.status === "enabled"),
      )
      .map((r) => ({
        id: r.pluginId,
        path: found.find((p) => p.id === r.pluginId)?.path ?? "",
        status: "load-error" as const,
        reason: r.reason,
      })),
  ];
  if (broken.length > 0) {
    return {
      status: "warn",
      message: `Plugins in error: ${broken.map((p) => `${p.id}: ${p.status} (${p.reason ?? ""})`).join("; ")}.`,
      remedy: broken.map((p) => remedyOf(p)).join(" "),
    };
  }
  const pending = results.filter((r) => r.status === "enabled" && r.pending.length > 0);
  if (pending.length > 0) {
    return {
      status: "warn",
      message: `Plugin migrations pending: ${pending.map((r) => `${r.pluginId} (${r.pending.length})`).join(", ")}.`,
      remedy: "Run `keel db migrate`.",
    };
  }
  const off = found.filter((p) => p.status === "disabled").length;
  return {
    status: "ok",
    message:
      found.length === 0
        ? "No plugins installed."
        : `${found.length} plugin(s), none in error${off > 0 ? ` (${off} switched off)` : ""}.`,
    remedy: null,
  };
}

function remedyOf(plugin: { id: string; path: string; status: string }): string {
  const remove = `remove its folder (${plugin.path})`;
  if (plugin.status === "invalid-manifest") {
    return `${plugin.id}: fix its plugin.json as the reason says, or ${remove}.`;
  }
  const fix =
    plugin.status === "incompatible-spec"
      ? "install a version of it for this spec"
      : "fix its migrations as the reason says, then `keel db migrate` tries them again";
  return `${plugin.id}: ${fix}; or ${remove}; or switch it off: \`keel plugins disable ${plugin.id}\` (with the --db or -g you gave doctor).`;
}

import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { PluginSettings } from "./discover.js";

/**
 * The config files whose `plugins` map switches and configures plugins, relative to the scope
 * root, first found wins: the catalog's config (`.keel/catalog.json`, or the spec's
 * `.skill-map.json`; docs/catalog.md, "Configuration").
 */
export const PLUGIN_SETTINGS_FILES: readonly string[] = [".keel/catalog.json", ".skill-map.json"];

/**
 * The config file's `plugins` map of the scope whose `.keel` folder is `keelDir` (a folder not
 * named `.keel` has only its own `catalog.json`), so that every module discovering plugins sees
 * a plugin the file switched off as off, not only the catalog. Read leniently: a file that is
 * not JSON, or an entry of the wrong shape, gives no setting here (the catalog's verbs report
 * the file's problems, CATALOG_CONFIG_INVALID); absent files give none.
 *
 * @example
 * readPluginFileSettings("/work/app/.keel"); // { vault: { enabled: false } }
 */
export function readPluginFileSettings(keelDir: string): Record<string, PluginSettings> {
  const files =
    basename(keelDir) === ".keel"
      ? PLUGIN_SETTINGS_FILES.map((name) => join(dirname(keelDir), name))
      : [join(keelDir, "catalog.json")];
  const file = files.find((candidate) => existsSync(candidate));
  if (!file) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return {};
  }
  const plugins = isObject(parsed) ? parsed.plugins : undefined;
  if (!isObject(plugins)) return {};
  const settings: Record<string, PluginSettings> = {};
  for (const [id, entry] of Object.entries(plugins)) {
    if (!isObject(entry)) continue;
    const enabled = typeof entry.enabled === "boolean" ? entry.enabled : undefined;
    const config = isObject(entry.config) ? entry.config : undefined;
    settings[id] = { enabled, config };
  }
  return settings;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { compareCodePoints } from "../../core/index.js";
import type { CatalogConfig } from "../config.js";
import { CATALOG_SPEC_VERSION } from "../model.js";
import { manifestProblems, type PluginManifest } from "./manifest.js";

/** Where a scope's plugins live, each in `<folder>/<id>/plugin.json` (Keel's, then the spec's). */
export const PLUGIN_FOLDERS: readonly string[] = [".keel/plugins", ".skill-map/plugins"];

/** A plugin's state after discovery (and, for `enabled`, after loading). */
export type PluginStatus =
  | "enabled"
  | "disabled"
  | "incompatible-spec"
  | "invalid-manifest"
  | "load-error";

/** One plugin folder found in a scope (the spec's `DiscoveredPlugin`). */
export interface DiscoveredPlugin {
  readonly id: string;
  /** Absolute path of the plugin folder. */
  readonly path: string;
  /** The manifest as read; `null` when `plugin.json` is missing or not JSON. */
  readonly manifest: PluginManifest | null;
  status: PluginStatus;
  /** Why, when the status is not `enabled`. */
  statusReason: string | null;
}

/**
 * Lists the plugin folders under the scope root's `.keel/plugins/` and `.skill-map/plugins/`,
 * each with its manifest checked against the spec's schema, its `specCompat` range against the
 * spec version Keel implements, and the config's `plugins.<id>.enabled`. Nothing is imported
 * here (see `loadPlugins`). A folder without a usable manifest is reported, never thrown.
 *
 * @example
 * for (const plugin of discoverPlugins(process.cwd(), {})) console.log(plugin.id, plugin.status);
 */
export function discoverPlugins(root: string, config: CatalogConfig): DiscoveredPlugin[] {
  const found: DiscoveredPlugin[] = [];
  const seen = new Set<string>();
  for (const folder of PLUGIN_FOLDERS) {
    const base = join(root, folder);
    if (!existsSync(base)) continue;
    const names = readdirSync(base, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort(compareCodePoints);
    for (const name of names) {
      const plugin = inspect(join(base, name), name, config);
      if (seen.has(plugin.id)) {
        plugin.status = "load-error";
        plugin.statusReason = `another plugin with id "${plugin.id}" was found first; rename one`;
      }
      seen.add(plugin.id);
      found.push(plugin);
    }
  }
  return found;
}

function inspect(path: string, folderName: string, config: CatalogConfig): DiscoveredPlugin {
  const invalid = (reason: string, manifest: PluginManifest | null = null): DiscoveredPlugin => ({
    id: manifest?.id ?? folderName,
    path,
    manifest,
    status: "invalid-manifest",
    statusReason: reason,
  });
  const file = join(path, "plugin.json");
  if (!existsSync(file)) return invalid("the folder has no plugin.json");
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    return invalid(`plugin.json is not valid JSON (${(error as Error).message})`);
  }
  const problems = manifestProblems(parsed);
  if (problems.length > 0) {
    const id =
      parsed !== null &&
      typeof parsed === "object" &&
      typeof (parsed as { id?: unknown }).id === "string"
        ? (parsed as { id: string }).id
        : folderName;
    return {
      ...invalid(`plugin.json does not match the manifest schema: ${problems.join("; ")}`),
      id,
    };
  }
  const manifest = parsed as PluginManifest;
  if (semver.validRange(manifest.specCompat) === null) {
    return invalid(`specCompat "${manifest.specCompat}" is not a semver range`, manifest);
  }
  if (!semver.satisfies(CATALOG_SPEC_VERSION, manifest.specCompat)) {
    return {
      id: manifest.id,
      path,
      manifest,
      status: "incompatible-spec",
      statusReason: `specCompat "${manifest.specCompat}" does not include spec ${CATALOG_SPEC_VERSION}, which Keel implements`,
    };
  }
  if (config.plugins?.[manifest.id]?.enabled === false) {
    return {
      id: manifest.id,
      path,
      manifest,
      status: "disabled",
      statusReason: `plugins.${manifest.id}.enabled is false in the config`,
    };
  }
  return { id: manifest.id, path, manifest, status: "enabled", statusReason: null };
}

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import semver from "semver";
import { compareCodePoints } from "../../core/index.js";
import { markCollisions } from "./collisions.js";
import type { DiscoveredPlugin, PluginStatus } from "./discovered.js";
import { type PluginState, pluginLoadProblem } from "./load-problem.js";
import { manifestProblems, PluginManifest, SPEC_VERSION } from "./manifest.js";

export type { DiscoveredPlugin, PluginStatus } from "./discovered.js";

/** Where a scope's plugins live, relative to the folder holding `.keel/`: Keel's, then the spec's. */
export const PLUGIN_FOLDERS: readonly string[] = [".keel/plugins", ".skill-map/plugins"];

/** `plugins.<id>` of a config file (the spec's project config). */
export interface PluginSettings {
  readonly enabled?: boolean | undefined;
  readonly config?: Readonly<Record<string, unknown>> | undefined;
}

/** What decides a plugin's switch and config besides its folder. */
export interface DiscoverOptions {
  /** The database's plugin state (`readPluginState`): switches, failed or pending migrations. */
  readonly state?: PluginState | undefined;
  /** The config file's `plugins` map. */
  readonly settings?: Readonly<Record<string, PluginSettings>> | undefined;
  /**
   * Whether a failed or pending migration makes a plugin `load-error` (default true). The
   * migrator and the doctor pass false: they try failed plugins again and report them themselves.
   */
  readonly readiness?: boolean | undefined;
}

/** Where a plugin's switch or config came from. */
export type SettingSource = "database" | "config" | "default";

/** A plugin's switch and config, and where each came from. */
export interface ResolvedPluginSettings {
  readonly enabled: boolean;
  readonly enabledFrom: SettingSource;
  /** `plugins.<id>.config`, or the `config_plugins.config_json` that replaces it; `{}` when none. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly configFrom: SettingSource;
}

/**
 * A plugin's switch and config. The database's `config_plugins` row (written by `keel plugins
 * enable|disable`) wins over the config file's `plugins.<id>`: the row is this scope's user's
 * latest explicit choice, made through the CLI, and the spec ranks the CLI over the config file;
 * the file is the shared default. Absent both, a plugin is enabled with an empty config.
 *
 * @example
 * resolvePluginSettings("vault", { settings: { vault: { enabled: false } } }).enabled; // false
 */
export function resolvePluginSettings(
  id: string,
  options: DiscoverOptions = {},
): ResolvedPluginSettings {
  const row = options.state?.switches.get(id);
  const file = options.settings?.[id];
  const enabled: [boolean, SettingSource] = row
    ? [row.enabled, "database"]
    : file?.enabled !== undefined
      ? [file.enabled, "config"]
      : [true, "default"];
  const config: [Readonly<Record<string, unknown>>, SettingSource] = row?.config
    ? [row.config, "database"]
    : file?.config
      ? [file.config, "config"]
      : [{}, "default"];
  return { enabled: enabled[0], enabledFrom: enabled[1], config: config[0], configFrom: config[1] };
}

/**
 * The plugin folders of a scope: `<root>/.keel/plugins` and the spec's `<root>/.skill-map/plugins`.
 *
 * @example
 * pluginFolders("/work/app"); // ["/work/app/.keel/plugins", "/work/app/.skill-map/plugins"]
 */
export function pluginFolders(root: string): string[] {
  return PLUGIN_FOLDERS.map((folder) => join(root, folder));
}

/**
 * The plugin folders of a store's scope folder (`StoreLocation.keelDir`): its `plugins/`, and the
 * spec's `.skill-map/plugins` beside it when it is a scope's `.keel` (not the folder of a file
 * given with `--db`, whose plugins are its own `plugins/`).
 *
 * @example
 * keelDirPluginFolders("/work/app/.keel"); // same as pluginFolders("/work/app")
 * keelDirPluginFolders("/tmp/run");        // ["/tmp/run/plugins"]
 */
export function keelDirPluginFolders(keelDir: string): string[] {
  return basename(keelDir) === ".keel"
    ? pluginFolders(dirname(keelDir))
    : [join(keelDir, "plugins")];
}

/**
 * Lists the plugins of the given folders (one sub-folder each, holding `plugin.json`): the one
 * discovery every module uses (catalog extensions, actions, packs, storage, migrations, doctor).
 * Each gets its status, first that applies: `invalid-manifest` (no or unreadable `plugin.json`,
 * a manifest the schema refuses, or an id that collides with another plugin's), `disabled`
 * (see `resolvePluginSettings`), `incompatible-spec` (`specCompat` excludes spec 0.1.0), and,
 * given the database's state, `load-error` when its last migration failed or its migrations are
 * not all applied. Nothing is imported (the catalog's `loadPlugins` does that, and may still make
 * an enabled plugin `load-error`). Never throws for a plugin's fault. Sorted by id.
 *
 * @example
 * for (const p of discoverPlugins(pluginFolders(root))) console.log(p.id, p.status);
 */
export function discoverPlugins(
  folders: string | readonly string[],
  options: DiscoverOptions = {},
): DiscoveredPlugin[] {
  const found: DiscoveredPlugin[] = [];
  for (const base of typeof folders === "string" ? [folders] : folders) {
    if (!existsSync(base)) continue;
    const names = readdirSync(base, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort(compareCodePoints);
    for (const name of names) found.push(inspect(join(base, name), name, options));
  }
  return markCollisions(found).sort((a, b) => compareCodePoints(a.id, b.id));
}

function inspect(path: string, folderName: string, options: DiscoverOptions): DiscoveredPlugin {
  const invalid = (id: string, reason: string): DiscoveredPlugin => ({
    id,
    path,
    manifest: null,
    status: "invalid-manifest",
    statusReason: reason,
  });
  const file = join(path, "plugin.json");
  if (!existsSync(file)) return invalid(folderName, "the folder has no plugin.json");
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    return invalid(folderName, `plugin.json is not valid JSON: ${(error as Error).message}`);
  }
  const problems = manifestProblems(raw);
  if (problems.length > 0) {
    const id = (raw as { id?: unknown } | null)?.id;
    return invalid(
      typeof id === "string" ? id : folderName,
      `plugin.json is invalid: ${problems.join("; ")}`,
    );
  }
  const manifest = PluginManifest.parse(raw);
  const plugin = (status: PluginStatus, statusReason: string | null): DiscoveredPlugin => ({
    id: manifest.id,
    path,
    manifest,
    status,
    statusReason,
  });
  // The user's switch comes first: a plugin switched off is `disabled`, whatever else.
  const settings = resolvePluginSettings(manifest.id, options);
  if (!settings.enabled) {
    return plugin(
      "disabled",
      settings.enabledFrom === "database"
        ? "disabled by the user (config_plugins)"
        : `plugins.${manifest.id}.enabled is false in the config`,
    );
  }
  // The reference's load-time check: semver.satisfies(specVersion, plugin.specCompat).
  if (manifest.specCompat !== undefined && !semver.satisfies(SPEC_VERSION, manifest.specCompat)) {
    return plugin(
      "incompatible-spec",
      `specCompat "${manifest.specCompat}" does not include spec ${SPEC_VERSION}, which Keel implements: install a version of the plugin for spec ${SPEC_VERSION}`,
    );
  }
  const problem =
    options.state && options.readiness !== false
      ? pluginLoadProblem(manifest, options.state)
      : null;
  return problem ? plugin(problem.status, problem.reason) : plugin("enabled", null);
}

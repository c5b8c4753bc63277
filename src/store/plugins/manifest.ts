import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { z } from "zod";
import { compareCodePoints } from "../../core/index.js";
import { normalizePluginId, pluginTablePrefix } from "./plugin-id.js";

/** The storage part of `plugin.json` (plugins-registry.schema.json): exactly one mode. */
export const PluginStorage = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("kv") }).strict(),
  z
    .object({
      mode: z.literal("dedicated"),
      tables: z.array(z.string().regex(/^[a-z][a-z0-9_]*$/, "table names are snake_case")).min(1),
      migrations: z.array(z.string().min(1)).min(1),
    })
    .strict(),
]);

/**
 * The skill-map spec version whose plugin contract Keel implements (seed 004's reference,
 * `shared/reference/skill-map-spec-0.1.0`). A plugin's `specCompat` range must admit it.
 */
export const SPEC_VERSION = "0.1.0";

/** `plugin.json`: the fields the store needs; others are kept for the plugin loader. */
export const PluginManifest = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, "plugin ids are kebab-case"),
    version: z.string().min(1),
    storage: PluginStorage.optional(),
    /** Semver range of the spec the plugin targets (`^0.1.0`); absent: no check. */
    specCompat: z
      .string()
      .refine((range) => semver.validRange(range) !== null, "specCompat is not a semver range")
      .optional(),
  })
  .passthrough();

export type PluginManifest = z.infer<typeof PluginManifest>;

/** A plugin found on disk with its resolved status (plugins-registry.schema.json `DiscoveredPlugin`). */
export interface DiscoveredPlugin {
  readonly id: string;
  readonly path: string;
  readonly manifest: PluginManifest | null;
  readonly status: "enabled" | "disabled" | "invalid-manifest" | "load-error" | "incompatible-spec";
  readonly statusReason: string | null;
}

/**
 * Finds plugins in `dir` (one folder each, holding `plugin.json`), validates their manifests and
 * refuses ids that collide after normalisation (both plugins become `invalid-manifest`).
 * `disabled` ids (from `config_plugins`) are reported as such. Sorted by id.
 */
export function discoverPlugins(
  dir: string,
  disabled: ReadonlySet<string> = new Set(),
): DiscoveredPlugin[] {
  if (!existsSync(dir)) return [];
  const found: DiscoveredPlugin[] = [];
  for (const entry of readdirSync(dir).sort(compareCodePoints)) {
    const path = join(dir, entry);
    if (!statSync(path).isDirectory()) continue;
    const file = join(path, "plugin.json");
    if (!existsSync(file)) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      found.push(
        invalid(entry, path, `plugin.json is not valid JSON: ${(error as Error).message}`),
      );
      continue;
    }
    const parsed = PluginManifest.safeParse(raw);
    if (!parsed.success) {
      const id =
        typeof (raw as { id?: unknown })?.id === "string"
          ? String((raw as { id: string }).id)
          : entry;
      const problems = parsed.error.issues.map(
        (issue) => `/${issue.path.join("/")}: ${issue.message}`,
      );
      found.push(invalid(id, path, `plugin.json is invalid: ${problems.join("; ")}`));
      continue;
    }
    const manifest = parsed.data;
    // The user's switch comes first: a plugin switched off is `disabled`, whatever else.
    if (disabled.has(manifest.id)) {
      found.push({
        id: manifest.id,
        path,
        manifest,
        status: "disabled",
        statusReason: "disabled by the user (config_plugins)",
      });
      continue;
    }
    // The reference's load-time check: semver.satisfies(specVersion, plugin.specCompat).
    if (manifest.specCompat !== undefined && !semver.satisfies(SPEC_VERSION, manifest.specCompat)) {
      found.push({
        id: manifest.id,
        path,
        manifest,
        status: "incompatible-spec",
        statusReason: `it targets spec ${manifest.specCompat}; this Keel implements spec ${SPEC_VERSION}: install a version of the plugin for spec ${SPEC_VERSION}`,
      });
      continue;
    }
    found.push({ id: manifest.id, path, manifest, status: "enabled", statusReason: null });
  }
  return markCollisions(found).sort((a, b) => compareCodePoints(a.id, b.id));
}

function invalid(id: string, path: string, reason: string): DiscoveredPlugin {
  return { id, path, manifest: null, status: "invalid-manifest", statusReason: reason };
}

/**
 * Two plugins whose ids normalise alike would share tables: both are refused. So are two
 * dedicated-storage plugins whose prefixes nest (`acme`'s `plugin_acme_` begins
 * `plugin_acme_b_` of `acme-b`): a table name such as `plugin_acme_b_notes` would fit both.
 */
function markCollisions(plugins: DiscoveredPlugin[]): DiscoveredPlugin[] {
  return markNestedPrefixes(markSameIds(plugins));
}

function markNestedPrefixes(plugins: DiscoveredPlugin[]): DiscoveredPlugin[] {
  const dedicated = plugins.filter(
    (plugin) =>
      plugin.manifest?.storage?.mode === "dedicated" && plugin.status !== "invalid-manifest",
  );
  return plugins.map((plugin) => {
    if (!dedicated.includes(plugin)) return plugin;
    const prefix = pluginTablePrefix(plugin.id);
    const nested = dedicated.filter((other) => {
      const otherPrefix = pluginTablePrefix(other.id);
      return other !== plugin && (otherPrefix.startsWith(prefix) || prefix.startsWith(otherPrefix));
    });
    if (nested.length === 0) return plugin;
    const others = nested.map((p) => `"${p.id}" (${pluginTablePrefix(p.id)}, ${p.path})`);
    return {
      ...plugin,
      status: "invalid-manifest",
      statusReason: `its table prefix ${prefix} and that of ${others.join(", ")} begin one another, so a table name could belong to either; rename one of them`,
    };
  });
}

function markSameIds(plugins: DiscoveredPlugin[]): DiscoveredPlugin[] {
  const byNormalized = new Map<string, DiscoveredPlugin[]>();
  for (const plugin of plugins) {
    const key = normalizePluginId(plugin.id);
    byNormalized.set(key, [...(byNormalized.get(key) ?? []), plugin]);
  }
  return plugins.map((plugin) => {
    const group = byNormalized.get(normalizePluginId(plugin.id)) ?? [];
    if (group.length < 2) return plugin;
    const others = group.filter((p) => p !== plugin).map((p) => `"${p.id}" (${p.path})`);
    return {
      ...plugin,
      status: "invalid-manifest",
      statusReason: `its id collides with ${others.join(", ")} after normalisation to "${normalizePluginId(plugin.id)}"; rename one of them`,
    };
  });
}

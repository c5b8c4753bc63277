import { readFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { z } from "zod";
import type { DiscoveredPlugin } from "../../store/index.js";
import type { IRDocument } from "../models/index.js";
import type { Problem } from "../problems.js";
import { checkPackCompat, PLUGIN_API_VERSION } from "../version.js";

/** A governance pack's CLIPS source and the version it declares. */
export interface PackSource {
  source: string;
  version?: string;
  /** The plugin that provides it, when it comes from one. */
  plugin?: string;
  /** The plugin `api_version` its plugin was written for (checked against this build's). */
  apiVersion?: string;
}

/** What a plugin's `plugin.json` may say about packs (the seed's PluginManifest `api_version`). */
const PluginPacks = z.object({
  api_version: z.string().default(PLUGIN_API_VERSION),
  packs: z.record(z.string(), z.string()).default({}),
});

/**
 * The governance packs the enabled plugins provide: `plugin.json` lists them as
 * `"packs": { "<pack id>": "<file>.clp" }` (paths inside the plugin's folder). A pack's version
 * is its file's `; version: X` line, else the plugin's version. Packs whose file cannot be read
 * are left out (a mount of one is then `unknown_pack`); a plugin whose `api_version` is not this
 * build's still lists its packs, so mounting one is `pack_incompatible` with the reason.
 * Two plugins providing the same pack id: the first by plugin id wins.
 *
 * @example
 * const packs = await loadPluginPacks(await discoverStorePlugins(store));
 */
export async function loadPluginPacks(
  plugins: readonly Pick<DiscoveredPlugin, "id" | "path" | "manifest" | "status">[],
): Promise<Record<string, PackSource>> {
  const packs: Record<string, PackSource> = {};
  for (const plugin of plugins) {
    if (plugin.status !== "enabled" || !plugin.manifest) continue;
    const declared = PluginPacks.safeParse(plugin.manifest);
    if (!declared.success) continue;
    for (const [id, file] of Object.entries(declared.data.packs)) {
      if (Object.hasOwn(packs, id)) continue;
      const path = resolve(plugin.path, file);
      // A pack file must stay inside its plugin's folder.
      const inside = relative(plugin.path, path);
      if (inside.startsWith("..") || isAbsolute(inside)) continue;
      let source: string;
      try {
        source = await readFile(path, "utf8");
      } catch {
        continue;
      }
      packs[id] = {
        source,
        version: declaredVersion(source) ?? plugin.manifest.version,
        plugin: plugin.id,
        apiVersion: declared.data.api_version,
      };
    }
  }
  return packs;
}

function declaredVersion(source: string): string | undefined {
  return /^;\s*version:\s*(\S+)/.exec(source)?.[1];
}

/**
 * Loads the packs a document mounts from `.clp` files in `dir`: `<dir>/<pack id>.clp`. A first
 * line comment `; version: 1.2.0` declares the pack's version (checked against the mount's pin).
 * Missing files are left out, so compiling reports them as `unknown_pack` problems.
 *
 * @example
 * const packs = await loadPackFiles(doc, "examples/packs");
 */
export async function loadPackFiles(
  doc: IRDocument,
  dir: string,
): Promise<Record<string, PackSource>> {
  const packs: Record<string, PackSource> = {};
  for (const mount of doc.governance) {
    let source: string;
    try {
      source = await readFile(join(dir, `${mount.id}.clp`), "utf8");
    } catch {
      continue;
    }
    const version = declaredVersion(source);
    packs[mount.id] = version === undefined ? { source } : { source, version };
  }
  return packs;
}

/**
 * Mounts a document's governance packs from `packs` (by id): each must be available, match the
 * mount's pinned version and pass the compatibility gate; failures are added to `problems`.
 * Returns the CLIPS sources to load, in mount order.
 */
export function mountPacks(
  doc: IRDocument,
  packs: Record<string, PackSource>,
  problems: Problem[],
): string[] {
  const sources: string[] = [];
  doc.governance.forEach((mount, index) => {
    const pack = packs[mount.id];
    const path = `/governance/${index}`;
    if (!pack) {
      problems.push({
        code: "unknown_pack",
        path: `${path}/id`,
        message: `Pack "${mount.id}" is not available.`,
        expected: Object.keys(packs).join(" | ") || "a registered pack",
        actual: JSON.stringify(mount.id),
        hint: "Add <id>.clp to the packs folder (`--packs`), install a plugin that provides it, or remove the mount.",
      });
      return;
    }
    if (mount.version !== null && pack.version !== undefined && mount.version !== pack.version) {
      problems.push({
        code: "pack_version_mismatch",
        path: `${path}/version`,
        message: `Pack "${mount.id}" is version ${pack.version}; the document pins ${mount.version}.`,
        expected: mount.version,
        actual: JSON.stringify(pack.version),
        hint: "Mount the pinned version, or change the pin.",
      });
      return;
    }
    if (pack.apiVersion !== undefined && pack.apiVersion !== PLUGIN_API_VERSION) {
      problems.push({
        code: "pack_incompatible",
        path: `${path}/id`,
        message: `Pack "${mount.id}" comes from plugin "${pack.plugin}", written for plugin api_version ${pack.apiVersion}; this Keel speaks ${PLUGIN_API_VERSION}.`,
        expected: `api_version ${PLUGIN_API_VERSION}`,
        actual: JSON.stringify(pack.apiVersion),
        hint: "Install a version of the plugin written for this Keel.",
      });
      return;
    }
    try {
      checkPackCompat(mount);
    } catch (error) {
      problems.push({
        code: "pack_incompatible",
        path: `${path}/requires`,
        message: (error as Error).message,
        expected: "requirements this build meets",
        actual: JSON.stringify(mount.requires),
        hint: "Mount a pack written for this Keel.",
      });
      return;
    }
    sources.push(pack.source);
  });
  return sources;
}

import { resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type { Extension } from "../extensions.js";
import { LINK_KINDS } from "../model.js";
import type { ExtensionRegistry } from "../registry.js";
import type { DiscoveredPlugin } from "./discover.js";

const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

// What is wrong with one exported value as an extension (null: nothing).
function shapeProblem(value: unknown): string | null {
  if (value === null || typeof value !== "object") return "is not an object";
  const e = value as Record<string, unknown>;
  if (typeof e.id !== "string" || !KEBAB.test(e.id)) return "has no kebab-case id";
  const name = `${String(e.kind)} "${e.id}"`;
  if (typeof e.version !== "string" || typeof e.description !== "string")
    return `${name} needs a version and a description (strings)`;
  const fn = (key: string) => typeof e[key] === "function";
  switch (e.kind) {
    case "adapter":
      return fn("classify") ? null : `${name} has no classify(path) function`;
    case "detector": {
      if (!fn("detect")) return `${name} has no detect(context) function`;
      if (!["body", "frontmatter", "both"].includes(e.scope as string))
        return `${name} needs scope body, frontmatter or both`;
      if (!["low", "medium", "high"].includes(e.defaultConfidence as string))
        return `${name} needs defaultConfidence low, medium or high`;
      const kinds = e.emitsLinkKinds;
      if (
        !Array.isArray(kinds) ||
        !kinds.every((k) => (LINK_KINDS as readonly unknown[]).includes(k))
      )
        return `${name} needs emitsLinkKinds, a list of ${LINK_KINDS.join(", ")}`;
      return null;
    }
    case "rule":
      return fn("evaluate") ? null : `${name} has no evaluate(context) function`;
    case "renderer":
      return fn("render") && typeof e.format === "string"
        ? null
        : `${name} needs a format and a render(graph) function`;
    default:
      return `declares kind "${String(e.kind)}"; an extension is an adapter, detector, rule or renderer`;
  }
}

// The extensions a module exports: its default export (one or a list), else every named export.
function exported(module: Record<string, unknown>): unknown[] {
  if ("default" in module && module.default !== undefined) {
    return Array.isArray(module.default) ? module.default : [module.default];
  }
  return Object.values(module);
}

/**
 * Imports the extensions of every `enabled` plugin and registers them, each marked with its
 * `pluginId`. JSON extension files (action manifests) and exported actions or audits belong to
 * other modules and are passed over. A plugin registers whole or not at all: an extension file that is missing, outside
 * the plugin folder, fails to import, exports something that is not an extension, or clashes
 * with a registered id turns the plugin's status into `load-error` (with the reason) and none of
 * its extensions is registered. Never throws for a plugin's fault.
 *
 * @example
 * const registry = builtInRegistry();
 * const plugins = discoverPlugins(root, config);
 * await loadPlugins(registry, plugins);
 */
export async function loadPlugins(
  registry: ExtensionRegistry,
  plugins: readonly DiscoveredPlugin[],
): Promise<void> {
  for (const plugin of plugins) {
    if (plugin.status !== "enabled" || !plugin.manifest) continue;
    try {
      const extensions: Extension[] = [];
      for (const relative of plugin.manifest.extensions) {
        const file = resolve(plugin.path, relative);
        if (!file.startsWith(`${plugin.path}${sep}`))
          throw new Error(`extension ${relative} is outside the plugin folder`);
        // A JSON extension is an action manifest: the jobs module reads those (src/jobs).
        if (file.endsWith(".json")) continue;
        let module: Record<string, unknown>;
        try {
          module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
        } catch (error) {
          throw new Error(
            `extension ${relative} could not be imported: ${(error as Error).message}`,
          );
        }
        const values = exported(module);
        if (values.length === 0) throw new Error(`extension ${relative} exports nothing`);
        for (const value of values) {
          // Actions and audits are other modules' kinds, not the scan's.
          const kind = (value as { kind?: unknown } | null)?.kind;
          if (kind === "action" || kind === "audit") continue;
          const problem = shapeProblem(value);
          if (problem) throw new Error(`extension ${relative}: the export ${problem}`);
          extensions.push(value as Extension);
        }
      }
      const taken = new Set(registry.all().map((e) => `${e.kind}:${e.id}`));
      for (const extension of extensions) {
        const key = `${extension.kind}:${extension.id}`;
        if (taken.has(key))
          throw new Error(`a ${extension.kind} with id "${extension.id}" is already registered`);
        taken.add(key);
      }
      for (const extension of extensions) {
        registry.register(
          Object.assign(Object.create(Object.getPrototypeOf(extension) as object), extension, {
            pluginId: plugin.id,
          }) as Extension,
        );
      }
    } catch (error) {
      plugin.status = "load-error";
      plugin.statusReason = (error as Error).message;
    }
  }
}

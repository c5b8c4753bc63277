import { resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { compileJsonSchema } from "../../runtime/tools/index.js";
import type { DiscoveredPlugin } from "../../store/index.js";
import type { Extension } from "../extensions.js";
import type { ExtensionRegistry } from "../registry.js";
import { extensionShapeProblem } from "./shape.js";

/** What a module's default-exported factory is called with, at load time. */
export interface PluginLoadContext {
  readonly pluginId: string;
  /** The plugin's config (`plugins.<id>.config`); `{}` when none is given. */
  readonly config: Readonly<Record<string, unknown>>;
}

// The values a module offers: its default export (one, a list, or a factory called with the
// load context), else every named export.
function exported(module: Record<string, unknown>, context: PluginLoadContext): unknown[] {
  if ("default" in module && module.default !== undefined) {
    let value: unknown = module.default;
    if (typeof value === "function") {
      try {
        value = (value as (c: PluginLoadContext) => unknown)(context);
      } catch (error) {
        throw new Error(`its default export (a factory) threw: ${(error as Error).message}`);
      }
    }
    return Array.isArray(value) ? value : [value];
  }
  return Object.values(module);
}

// Every problem of the config against each extension's configSchema, as "<pointer> <message>".
function configProblems(extensions: readonly Extension[], config: unknown): string[] {
  const problems: string[] = [];
  for (const extension of extensions) {
    if (!extension.configSchema) continue;
    let check: ReturnType<typeof compileJsonSchema>;
    try {
      check = compileJsonSchema(extension.configSchema as Record<string, unknown>);
    } catch (error) {
      throw new Error(
        `${extension.kind} "${extension.id}" has a configSchema that is not a JSON Schema: ${(error as Error).message}`,
      );
    }
    for (const problem of check(config)) problems.push(`${problem.path}: ${problem.message}`);
  }
  return [...new Set(problems)];
}

/**
 * Imports the extensions of every `enabled` plugin and registers them, each marked with its
 * `pluginId` and given its plugin's `config` (`configs`, by plugin id, else `{}`). A module may
 * default-export a factory, called with `{ pluginId, config }`. JSON extension files (action
 * manifests) and exported actions or audits belong to other modules and are passed over. A
 * plugin registers whole or not at all: an extension file that is missing, outside the plugin
 * folder, fails to import, exports something that is not an extension, clashes with a registered
 * id, or a config that breaks an extension's `configSchema` turns the plugin's status into
 * `load-error` (with the reason: every config problem) and none of its extensions is registered.
 * Never throws for a plugin's fault.
 *
 * @example
 * const registry = builtInRegistry();
 * const plugins = discoverPlugins(pluginFolders(root));
 * await loadPlugins(registry, plugins, { vault: { folder: "notes" } });
 */
export async function loadPlugins(
  registry: ExtensionRegistry,
  plugins: readonly DiscoveredPlugin[],
  configs: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {},
): Promise<void> {
  for (const plugin of plugins) {
    if (plugin.status !== "enabled" || !plugin.manifest) continue;
    const context: PluginLoadContext = {
      pluginId: plugin.id,
      config: Object.hasOwn(configs, plugin.id) ? (configs[plugin.id] ?? {}) : {},
    };
    try {
      const extensions: Extension[] = [];
      for (const relative of plugin.manifest.extensions ?? []) {
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
        let values: unknown[];
        try {
          values = exported(module, context);
        } catch (error) {
          throw new Error(`extension ${relative}: ${(error as Error).message}`);
        }
        if (values.length === 0) throw new Error(`extension ${relative} exports nothing`);
        for (const value of values) {
          // Actions and audits are other modules' kinds, not the scan's.
          const kind = (value as { kind?: unknown } | null)?.kind;
          if (kind === "action" || kind === "audit") continue;
          const problem = extensionShapeProblem(value);
          if (problem) throw new Error(`extension ${relative}: the export ${problem}`);
          extensions.push(value as Extension);
        }
      }
      const problems = configProblems(extensions, context.config);
      if (problems.length > 0)
        throw new Error(`plugins.${plugin.id}.config is invalid: ${problems.join("; ")}`);
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
            config: context.config,
          }) as Extension,
        );
      }
    } catch (error) {
      plugin.status = "load-error";
      plugin.statusReason = (error as Error).message;
    }
  }
}

import { BUILT_IN_EXTENSIONS } from "./builtins/index.js";
import { type DisabledKinds, ExtensionRegistry } from "./registry.js";

/**
 * A registry holding Keel's built-in extensions (the Claude adapter, the four detectors, the
 * six rules, the four renderers), with whole kinds switched off as asked.
 *
 * @example
 * const registry = builtInRegistry({ rules: true }); // scan without rules
 */
export function builtInRegistry(disabled: DisabledKinds = {}): ExtensionRegistry {
  const registry = new ExtensionRegistry();
  for (const extension of BUILT_IN_EXTENSIONS) registry.register(extension);
  return registry.disable(disabled);
}

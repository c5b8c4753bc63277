import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { KeelError } from "./errors.js";

const loaded = new Map<string, unknown>();
const requireHere = createRequire(import.meta.url);

/**
 * Loads an optional peer dependency (such as `@langchain/core/messages`) synchronously, the
 * first time something needs it, and caches it. The module is resolved as an ES module and
 * loaded with `require(esm)` (Node ≥ 20.19), so its classes are the very ones the caller's own
 * `import` gets — `instanceof` holds between them. A graph that never meets a LangChain value
 * never loads LangChain.
 *
 * @example
 * const { AIMessage } = loadOptionalPeer<typeof import("@langchain/core/messages")>(
 *   "@langchain/core/messages",
 * );
 */
export function loadOptionalPeer<T>(specifier: string): T {
  const cached = loaded.get(specifier);
  if (cached !== undefined) return cached as T;
  let module: T;
  try {
    // import.meta.resolve picks the package's "import" condition: the ESM build, not the CJS one.
    const url = import.meta.resolve(specifier);
    module = requireHere(url.startsWith("file:") ? fileURLToPath(url) : url) as T;
  } catch (error) {
    throw new KeelError(
      "OPTIONAL_DEPENDENCY_MISSING",
      `This needs the optional peer dependency "${packageOf(specifier)}", which could not be loaded: ${(error as Error).message}`,
      {
        cause: error,
        details: { specifier },
        hint: `Install it next to Keel: npm install ${packageOf(specifier)} (Node ≥ 20.19 is needed to load it synchronously).`,
      },
    );
  }
  loaded.set(specifier, module);
  return module;
}

/**
 * Loads an optional peer with a native `import()` ahead of synchronous use, so that
 * `loadOptionalPeer` returns the very module instance the application imports even under a
 * loader that compiles `require`d ES modules apart (tsx). Resolves to false when it is absent.
 */
export async function preloadOptionalPeer(specifier: string): Promise<boolean> {
  if (loaded.has(specifier)) return true;
  try {
    loaded.set(specifier, await import(specifier));
    return true;
  } catch {
    return false;
  }
}

/**
 * Hands Keel an optional peer's module the application already holds, before Keel loads it. For
 * a bundled application (esbuild, webpack), whose bundle carries its own `@langchain/core`: Keel
 * would otherwise load a second copy from node_modules at the first messages graph — twice the
 * start-up, and two sets of message classes.
 *
 * @example
 * import * as messages from "@langchain/core/messages";
 * import * as documents from "@langchain/core/documents";
 * import * as callbacks from "@langchain/core/callbacks/base";
 * provideOptionalPeer("@langchain/core/messages", messages);
 * provideOptionalPeer("@langchain/core/documents", documents);
 * provideOptionalPeer("@langchain/core/callbacks/base", callbacks);
 */
export function provideOptionalPeer(specifier: string, module: object): void {
  loaded.set(specifier, module);
}

/** True once `specifier` is loaded (by `loadOptionalPeer` or `preloadOptionalPeer`). */
export function isOptionalPeerLoaded(specifier: string): boolean {
  return loaded.has(specifier);
}

function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

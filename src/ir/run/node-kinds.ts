import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { RunConfig } from "../../graph/index.js";
import type { IRDocument, NodeSpec } from "../models/index.js";
import { hintFor, type Problem, renderActual } from "../problems.js";
import { USER_CODE_KIND } from "../references.js";

/** What a node implementation gets besides the state. */
export interface NodeContext {
  node: NodeSpec;
  config: RunConfig;
}

/**
 * A node's behaviour: reads the state (user fields only), returns an update of user fields (or
 * nothing). It may be async.
 */
export type IrNode = (
  state: Record<string, unknown>,
  context: NodeContext,
) => Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>;

/** Makes the implementation of a node of some kind. */
export type NodeFactory = (node: NodeSpec) => IrNode;

/**
 * The built-in kinds: `echo` leaves the state as it is (routing is done by rules), `halt` ends
 * the run when reached.
 */
export const BUILTIN_NODE_KINDS: Readonly<Record<string, NodeFactory>> = {
  echo: () => () => undefined,
  halt: () => () => undefined,
};

/**
 * Resolves every node's implementation: the registry first (built-ins plus `kinds`), then
 * `module/path:ExportName` user code (paths relative to `baseDir`, or package names), whose
 * export must be a function. Unknown kinds and failing imports are problems.
 */
export async function resolveNodes(
  doc: IRDocument,
  kinds: Record<string, NodeFactory>,
  baseDir: string,
): Promise<{ nodes: Map<string, IrNode>; problems: Problem[] }> {
  const registry = { ...BUILTIN_NODE_KINDS, ...kinds };
  const nodes = new Map<string, IrNode>();
  const problems: Problem[] = [];
  for (const [index, node] of doc.nodes.entries()) {
    const path = `/nodes/${index}/kind`;
    const factory = Object.hasOwn(registry, node.kind) ? registry[node.kind] : undefined;
    if (factory) {
      nodes.set(node.id, factory(node));
      continue;
    }
    if (!USER_CODE_KIND.test(node.kind)) {
      problems.push({
        code: "unknown_node_kind",
        path,
        message: `Node "${node.id}" has kind "${node.kind}", which is not registered.`,
        expected: `${Object.keys(registry).join(" | ")} | module/path:ExportName`,
        actual: renderActual(node.kind),
        hint: hintFor("unknown_node_kind"),
      });
      continue;
    }
    const loaded = await importExport(node.kind, baseDir);
    if ("node" in loaded) nodes.set(node.id, loaded.node);
    else
      problems.push({
        code: "node_import_failed",
        path,
        message: `Node "${node.id}": ${loaded.error}`,
        expected: "a module exporting a function",
        actual: renderActual(node.kind),
        hint: "Check the module path (relative to the document) and the export name.",
      });
  }
  return { nodes, problems };
}

async function importExport(
  kind: string,
  baseDir: string,
): Promise<{ node: IrNode } | { error: string }> {
  const colon = kind.lastIndexOf(":");
  const specifier = kind.slice(0, colon);
  const name = kind.slice(colon + 1);
  const local = specifier.startsWith(".") || isAbsolute(specifier);
  const target = local ? pathToFileURL(resolve(baseDir, specifier)).href : specifier;
  try {
    const module = (await import(target)) as Record<string, unknown>;
    const value = module[name];
    if (typeof value !== "function")
      return { error: `${specifier} has no function export "${name}".` };
    return { node: value as IrNode };
  } catch (error) {
    return { error: `cannot import ${specifier}: ${(error as Error).message}` };
  }
}

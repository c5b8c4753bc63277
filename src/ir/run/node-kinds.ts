import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { BaseStore } from "../../checkpoint/base/index.js";
import { KeelError } from "../../core/index.js";
import type { RunConfig } from "../../graph/index.js";
import type { IRDocument, NodeSpec } from "../models/index.js";
import { hintFor, type Problem, renderActual } from "../problems.js";
import { USER_CODE_KIND } from "../references.js";
import type { ToolCaller, ToolDescriber } from "./governance.js";
import type { StateClasses } from "./state.js";

/** What a node implementation gets besides the state. */
export interface NodeContext {
  node: NodeSpec;
  config: RunConfig;
  /**
   * Calls a tool the document names (`tools`), through the gates and the ledger of the governed
   * run; outside one it refuses.
   */
  call: ToolCaller;
  /** In a governed run: what the registered tool a document names is (for binding to a model). */
  describeTool?: ToolDescriber;
  /** The document's `stores` bindings by name (a sole binding is also `config.store`). */
  stores: Readonly<Record<string, BaseStore>>;
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

const registered: Record<string, NodeFactory> = {};

/**
 * Adds node kinds every document may use, beside the built-ins (`echo`, `halt`): how a layer
 * above the IR provides its own (the CLI registers `keel/prebuilt`'s `llm`). Explicit, never a
 * side effect of an import; `kinds` given to a compile still win.
 *
 * @example
 * registerNodeKinds({ llm: llmNodeKind() });
 */
export function registerNodeKinds(kinds: Record<string, NodeFactory>): void {
  Object.assign(registered, kinds);
}

/** The built-in and registered node kinds (what a document may use without `--kinds`). */
export function knownNodeKinds(): Readonly<Record<string, NodeFactory>> {
  return { ...BUILTIN_NODE_KINDS, ...registered };
}

/**
 * Resolves every node's implementation: the registry first (built-ins, registered kinds, then
 * `kinds`), then
 * `module/path:ExportName` user code (paths relative to `baseDir`, or package names), whose
 * export must be a function. Unknown kinds and failing imports are problems.
 */
export async function resolveNodes(
  doc: IRDocument,
  kinds: Record<string, NodeFactory>,
  baseDir: string,
): Promise<{ nodes: Map<string, IrNode>; problems: Problem[] }> {
  const registry = { ...BUILTIN_NODE_KINDS, ...registered, ...kinds };
  const nodes = new Map<string, IrNode>();
  const problems: Problem[] = [];
  for (const [index, node] of doc.nodes.entries()) {
    const path = `/nodes/${index}/kind`;
    const factory = Object.hasOwn(registry, node.kind) ? registry[node.kind] : undefined;
    if (factory) {
      try {
        nodes.set(node.id, factory(node));
      } catch (error) {
        // A factory refusing the node's config: a problem at the node, like an unknown kind.
        problems.push({
          code: "node_config_invalid",
          path: `/nodes/${index}/config`,
          message: `Node "${node.id}" (${node.kind}): ${(error as Error).message}`,
          expected: `a config the "${node.kind}" kind accepts`,
          actual: renderActual(node.config),
          hint: (error as { hint?: string }).hint ?? "Fix the node's config.",
        });
      }
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
  const target = moduleTarget(specifier, baseDir);
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

/** What a kinds module (`keel run --kinds <module>`) provides. */
export interface KindsModule {
  nodeKinds: Record<string, NodeFactory>;
  /** State classes a document may name in `state_class` (zod objects by name). */
  stateClasses: StateClasses;
}

/**
 * Loads a kinds module: its `nodeKinds` export (or else its default export), a record of
 * factories by kind name (`{ dspy: (node) => (state, ctx) => update }`), and its `stateClasses`
 * export, zod objects by the name a document's `state_class` uses. `specifier` is a path
 * (relative to `baseDir`) or a package name. Throws `IR_NODE_KINDS_INVALID` when the module
 * cannot be imported, exports neither, or exports something else under those names. This is how
 * `keel run --kinds <module>` gives a document kinds the registry does not have (the seed's
 * triage example uses `dspy`) and a registered state class.
 *
 * @example
 * const { nodeKinds, stateClasses } = await loadKindsModule("./kinds.mjs", process.cwd());
 * await compileDocument(text, { nodeKinds, stateClasses });
 */
export async function loadKindsModule(specifier: string, baseDir: string): Promise<KindsModule> {
  const target = moduleTarget(specifier, baseDir);
  let module: Record<string, unknown>;
  try {
    module = (await import(target)) as Record<string, unknown>;
  } catch (error) {
    throw new KeelError(
      "IR_NODE_KINDS_INVALID",
      `Cannot import node kinds from ${specifier}: ${(error as Error).message}`,
      {
        cause: error,
        details: { module: specifier },
        hint: "Check the path (relative to the current directory) or the package name.",
      },
    );
  }
  const classes = module.stateClasses;
  const record = module.nodeKinds ?? (classes === undefined ? module.default : {});
  const invalid = (what: string, names: string[]) =>
    new KeelError(
      "IR_NODE_KINDS_INVALID",
      `${specifier}: ${what} ${names.map((k) => JSON.stringify(k)).join(", ")} are not ${what === "node kinds" ? "factory functions" : "zod objects"}.`,
      {
        details: { module: specifier },
        hint: "Export `nodeKinds = { kind: (node) => (state, context) => update }` and/or `stateClasses = { Name: z.object({…}) }`.",
      },
    );
  if (!isRecord(record) || (classes !== undefined && !isRecord(classes))) {
    throw new KeelError(
      "IR_NODE_KINDS_INVALID",
      `${specifier} exports no node kinds (a \`nodeKinds\` or default export object) and no \`stateClasses\` object.`,
      {
        details: { module: specifier },
        hint: "Export `nodeKinds = { kind: (node) => (state, context) => update }` and/or `stateClasses = { Name: z.object({…}) }`.",
      },
    );
  }
  const badKinds = Object.entries(record).filter(([, factory]) => typeof factory !== "function");
  if (badKinds.length > 0)
    throw invalid(
      "node kinds",
      badKinds.map(([name]) => name),
    );
  const stateClasses = (classes ?? {}) as Record<string, unknown>;
  const badClasses = Object.entries(stateClasses).filter(([, schema]) => !isZodObject(schema));
  if (badClasses.length > 0)
    throw invalid(
      "state classes",
      badClasses.map(([name]) => name),
    );
  return {
    nodeKinds: record as Record<string, NodeFactory>,
    stateClasses: stateClasses as StateClasses,
  };
}

/** The node kinds of a kinds module (see {@link loadKindsModule}). */
export async function loadNodeKinds(
  specifier: string,
  baseDir: string,
): Promise<Record<string, NodeFactory>> {
  return (await loadKindsModule(specifier, baseDir)).nodeKinds;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A zod object from any copy of zod the module imported (so no instanceof). */
function isZodObject(value: unknown): boolean {
  const candidate = value as { shape?: unknown; safeParse?: unknown } | null;
  return (
    isRecord(candidate) && isRecord(candidate.shape) && typeof candidate.safeParse === "function"
  );
}

/**
 * Where a module specifier points, as something `import()` takes and a run can record: a file
 * URL for paths (absolute once resolved against `baseDir`), the name itself for packages. A bare
 * specifier naming an existing file (`examples/kinds.mjs`, as typed on a command line) is a path.
 */
export function moduleTarget(specifier: string, baseDir: string): string {
  if (specifier.startsWith("file:")) return specifier;
  const local =
    specifier.startsWith(".") || isAbsolute(specifier) || existsSync(resolve(baseDir, specifier));
  return local ? pathToFileURL(resolve(baseDir, specifier)).href : specifier;
}

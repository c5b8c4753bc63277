import { readFile } from "node:fs/promises";
import { dirname, extname, isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { BaseCheckpointSaver } from "../../checkpoint/index.js";
import { KeelError } from "../../core/index.js";
import { CompiledStateGraph, StateGraph } from "../../graph/index.js";
import { compileDocument, loadPluginPacks } from "../../ir/index.js";
import type { Store } from "../../store/index.js";
import { discoverStorePlugins } from "../../store/index.js";

/** The graph an assistant runs, compiled onto the server's durable saver. */
export type HostedGraph = CompiledStateGraph<Record<string, unknown>, Record<string, unknown>>;

/** One assistant: a graph of the config, as the LangGraph API describes it. */
export interface Assistant {
  assistantId: string;
  graphId: string;
  /** `module` for a TypeScript/JavaScript graph module, `ir` for an IR document. */
  kind: "module" | "ir";
  source: string;
  graph: HostedGraph;
  createdAt: number;
}

/** The server config: `keel.json` or `langgraph.json`, `{ "graphs": { id: "./file.ts:export" } }`. */
export interface ServerConfig {
  graphs: Record<string, string>;
}

/** What a graph module may export: a builder, a compiled graph, or a factory of either. */
type GraphExport =
  | StateGraph<never>
  | HostedGraph
  | ((context: { checkpointer: BaseCheckpointSaver }) => unknown);

/**
 * Loads the config's graphs and compiles each onto `checkpointer`. A module entry is
 * `path:export` (`graph` when no export is named); a `.json` entry is an IR document. Every entry
 * is tried and every failure reported at once (CONFIG_INVALID).
 *
 * @example
 * const assistants = await loadAssistants("keel.json", { checkpointer: saver, store });
 */
export async function loadAssistants(
  configPath: string,
  options: { checkpointer: BaseCheckpointSaver; store: Store },
): Promise<Map<string, Assistant>> {
  const config = await readConfig(configPath);
  const base = dirname(resolve(configPath));
  const assistants = new Map<string, Assistant>();
  const problems: Array<{ graph: string; message: string }> = [];
  for (const [graphId, entry] of Object.entries(config.graphs)) {
    try {
      const loaded = await loadEntry(entry, base, options);
      assistants.set(graphId, {
        assistantId: graphId,
        graphId,
        kind: loaded.kind,
        source: entry,
        graph: loaded.graph,
        createdAt: Date.now(),
      });
    } catch (error) {
      problems.push({ graph: graphId, message: (error as Error).message });
    }
  }
  if (problems.length > 0) {
    throw new KeelError(
      "CONFIG_INVALID",
      `${configPath}: ${problems.length} graph(s) could not be loaded: ${problems.map((p) => `${p.graph}: ${p.message}`).join("; ")}`,
      {
        details: { problems },
        hint: "Fix the entries under `graphs` (path:export or an IR .json).",
      },
    );
  }
  return assistants;
}

/** Registers graphs given in code (tests, embedding): each compiled onto the server's saver. */
export function assistantsFrom(
  graphs: Record<string, GraphExport>,
  checkpointer: BaseCheckpointSaver,
): Map<string, Assistant> {
  const assistants = new Map<string, Assistant>();
  for (const [graphId, value] of Object.entries(graphs)) {
    const graph = hostGraph(value, checkpointer, graphId);
    if (graph instanceof Promise)
      throw new KeelError("INVALID_ARGUMENT", `Graph "${graphId}" is a promise; await it first.`);
    assistants.set(graphId, {
      assistantId: graphId,
      graphId,
      kind: "module",
      source: "(in code)",
      graph,
      createdAt: Date.now(),
    });
  }
  return assistants;
}

async function readConfig(path: string): Promise<ServerConfig> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, "utf8"));
  } catch (cause) {
    throw new KeelError(
      "CONFIG_INVALID",
      `Cannot read the server config ${path}: ${(cause as Error).message}`,
      {
        cause,
        hint: 'Write a keel.json such as {"graphs": {"agent": "./agent.ts:graph"}}.',
      },
    );
  }
  const graphs = (parsed as { graphs?: unknown } | null)?.graphs;
  if (
    typeof graphs !== "object" ||
    graphs === null ||
    Array.isArray(graphs) ||
    Object.values(graphs).some((v) => typeof v !== "string")
  ) {
    throw new KeelError(
      "CONFIG_INVALID",
      `${path}: "graphs" must map graph ids to "path:export" strings.`,
      {
        details: { path: "/graphs" },
        hint: 'Example: {"graphs": {"agent": "./agent.ts:graph", "triage": "./triage.ir.json"}}.',
      },
    );
  }
  for (const id of Object.keys(graphs)) {
    if (!/^[A-Za-z0-9_.-]{1,100}$/.test(id)) {
      throw new KeelError("CONFIG_INVALID", `${path}: graph id "${id}" is not a plain name.`, {
        details: { path: `/graphs/${id}` },
        hint: "Use letters, digits, _, . and -.",
      });
    }
  }
  return { graphs: graphs as Record<string, string> };
}

async function loadEntry(
  entry: string,
  base: string,
  options: { checkpointer: BaseCheckpointSaver; store: Store },
): Promise<{ kind: "module" | "ir"; graph: HostedGraph }> {
  // A Windows drive letter is not an export separator.
  const colon = entry.lastIndexOf(":");
  const hasExport = colon > 1;
  const file = hasExport ? entry.slice(0, colon) : entry;
  const path = isAbsolute(file) ? file : resolve(base, file);
  if (extname(path) === ".json") {
    const document = JSON.parse(await readFile(path, "utf8")) as unknown;
    const packs = await loadPluginPacks(await discoverStorePlugins(options.store));
    const compiled = await compileDocument(document, {
      checkpointer: options.checkpointer,
      baseDir: dirname(path),
      packs,
      storeContext: { kernel: options.store },
    });
    return { kind: "ir", graph: compiled.graph as HostedGraph };
  }
  const exportName = hasExport ? entry.slice(colon + 1) : "graph";
  const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  const value = module[exportName];
  if (value === undefined) {
    throw new KeelError("CONFIG_INVALID", `${path} has no export "${exportName}".`);
  }
  return {
    kind: "module",
    graph: await hostGraph(value as GraphExport, options.checkpointer, entry),
  };
}

function hostGraph(
  value: GraphExport,
  checkpointer: BaseCheckpointSaver,
  name: string,
): HostedGraph | Promise<HostedGraph> {
  if (value instanceof StateGraph) return value.compile({ checkpointer }) as unknown as HostedGraph;
  if (value instanceof CompiledStateGraph)
    return value.withCheckpointer(checkpointer) as HostedGraph;
  if (typeof value === "function") {
    const made = (value as (context: { checkpointer: BaseCheckpointSaver }) => unknown)({
      checkpointer,
    });
    if (made instanceof Promise)
      return made.then((graph) => hostGraph(graph as GraphExport, checkpointer, name));
    return hostGraph(made as GraphExport, checkpointer, name);
  }
  throw new KeelError(
    "CONFIG_INVALID",
    `Graph "${name}" is neither a StateGraph, a compiled graph nor a function returning one.`,
  );
}

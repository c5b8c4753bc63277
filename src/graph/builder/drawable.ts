import type * as LcGraph from "@langchain/core/runnables/graph";
import { loadOptionalPeer } from "../../core/index.js";
import { END, START } from "../constants.js";
import type { GraphDeclaration } from "./declarations.js";

type Drawable = LcGraph.Graph;
type DrawNode = LcGraph.Node;

/** What `getGraph` takes: `xray` draws subgraphs inside their nodes (a number limits the depth). */
export interface GetGraphOptions {
  xray?: boolean | number;
}

/** Interrupt settings of the compiled graph, drawn on its nodes. */
export interface DrawInterrupts {
  before: ReadonlySet<string>;
  after: ReadonlySet<string>;
}

/** A compiled graph that can draw itself (a subgraph under `xray`). */
interface DrawableSource {
  getGraph(options?: GetGraphOptions): Drawable;
}

const ERROR_HANDLER = /^__(default_)?error_handler__/;

/**
 * The graph as LangChain's drawable `Graph` (`@langchain/core/runnables/graph`, an optional
 * peer loaded on the first call): nodes in the order they were added, static edges, conditional
 * edges to each target a path map or `ends` names (to every node and END without one), and an
 * edge to END for a node nothing leaves. The same drawing as LangGraph.js's `getGraph()`.
 */
export function drawGraph(
  declaration: GraphDeclaration,
  interrupts: DrawInterrupts,
  options: GetGraphOptions = {},
): Drawable {
  const { Graph } = loadOptionalPeer<typeof LcGraph>("@langchain/core/runnables/graph");
  const graph = new Graph();
  const schema = { name: "schema" } as never;
  const starts: Record<string, DrawNode> = { [START]: graph.addNode(schema, START) };
  const ends: Record<string, DrawNode> = {};
  const seen: Array<{ src: string; dest: string; conditional: boolean }> = [];
  const addEdge = (from: string, to: string, label?: string, conditional = false) => {
    if (to === END && ends[END] === undefined) ends[END] = graph.addNode(schema, END);
    const source = starts[from];
    const target = ends[to];
    if (source === undefined || target === undefined) return;
    seen.push({ src: from, dest: to, conditional });
    graph.addEdge(source, target, label !== to ? label : undefined, conditional);
  };
  const xray = options.xray;
  for (const [name, decl] of declaration.nodes) {
    const key = escapeKeyword(name);
    const metadata: Record<string, unknown> = {};
    const before = interrupts.before.has(name) || interrupts.before.has("*");
    const after = interrupts.after.has(name) || interrupts.after.has("*");
    if (before || after)
      metadata.__interrupt = before && after ? "before,after" : before ? "before" : "after";
    const sub = decl.subgraph as Partial<DrawableSource> | undefined;
    if (xray && typeof sub?.getGraph === "function") {
      const inner = sub.getGraph({ xray: typeof xray === "number" ? xray - 1 : xray });
      inner.trimFirstNode();
      inner.trimLastNode();
      if (Object.keys(inner.nodes).length > 1) {
        const [last, first] = graph.extend(inner, key);
        if (first !== undefined) starts[key] = { name: first.id, ...first };
        if (last !== undefined) ends[key] = { name: last.id, ...last };
        continue;
      }
    }
    const node = graph.addNode({ name } as never, key, metadata);
    starts[key] = node;
    ends[key] = node;
  }
  const edges: Array<[string, string]> = [...declaration.edges];
  for (const join of declaration.joins)
    for (const source of join.sources) edges.push([source, join.target]);
  edges.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [from, to] of edges) addEdge(escapeKeyword(from), escapeKeyword(to));
  const names = [...declaration.nodes.keys()];
  for (const branch of declaration.branches) {
    const targets: Record<string, string> =
      branch.pathMap ??
      Object.fromEntries([
        ...names.filter((n) => n !== branch.source).map((n) => [n, n]),
        [END, END],
      ]);
    for (const [label, to] of Object.entries(targets))
      addEdge(escapeKeyword(branch.source), escapeKeyword(to), label, true);
  }
  for (const [name, decl] of declaration.nodes) {
    for (const to of decl.ends ?? [])
      addEdge(escapeKeyword(name), escapeKeyword(to), undefined, true);
  }
  // LangGraph.js draws an edge to END from a node that static edges reach and nothing leaves.
  const sources = new Set(seen.map((e) => e.src));
  const reached = [
    ...new Set(seen.filter((e) => !e.conditional && e.dest !== END).map((e) => e.dest)),
  ].sort();
  for (const dest of reached) {
    if (!sources.has(dest) && !ERROR_HANDLER.test(dest)) addEdge(dest, END);
  }
  return graph;
}

/** Mermaid reads a node named `subgraph` as a keyword. */
function escapeKeyword(name: string): string {
  return name === "subgraph" ? `"${name}"` : name;
}

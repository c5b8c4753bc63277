import { END, START } from "../../graph/index.js";
import type { HostedGraph } from "./assistants.js";

/** A graph's drawing: LangGraph's `getGraph()` JSON (nodes and edges, conditional marked). */
export interface GraphTopology {
  nodes: Array<{ id: string; type: "schema" | "runnable"; data: string }>;
  edges: Array<{ source: string; target: string; conditional: boolean }>;
}

/**
 * The topology of a compiled graph, read from its compiled tables: static edges (and joins)
 * from each node's edge writes, conditional edges from path maps. A conditional edge without a
 * path map may go anywhere: it is drawn to every node and END, as LangGraph draws it.
 */
export function topologyOf(graph: HostedGraph): GraphTopology {
  const spec = graph.spec;
  const names = spec.nodes.map((n) => n.name);
  const nodes: GraphTopology["nodes"] = [
    { id: START, type: "schema", data: START },
    ...names.map((name) => ({ id: name, type: "runnable" as const, data: name })),
    { id: END, type: "schema", data: END },
  ];
  const edges: GraphTopology["edges"] = [];
  const seen = new Set<string>();
  const add = (source: string, target: string, conditional: boolean) => {
    const key = `${source}\u0000${target}\u0000${conditional}`;
    if (seen.has(key)) return;
    seen.add(key);
    edges.push({ source, target, conditional });
  };
  const from = (
    source: string,
    part: {
      edgeWrites: Array<[number, unknown]>;
      branches: Array<{ pathMap: Record<string, string> | undefined }>;
    },
  ) => {
    for (const [channel] of part.edgeWrites) {
      const target = spec.channelTarget[channel];
      if (target !== undefined && target >= 0) add(source, names[target] ?? END, false);
    }
    for (const branch of part.branches) {
      const targets = branch.pathMap ? Object.values(branch.pathMap) : [...names, END];
      for (const target of targets) add(source, target, true);
    }
  };
  from(START, spec.start);
  for (const node of spec.nodes) from(node.name, node);
  // A node with no way out ends the run.
  for (const name of names) if (!edges.some((e) => e.source === name)) add(name, END, false);
  return { nodes, edges };
}

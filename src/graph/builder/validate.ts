import { END, START } from "../constants.js";
import { GraphValueError } from "../errors.js";
import type { GraphDeclaration } from "./declarations.js";

/** One thing wrong with a graph's shape. */
export interface GraphProblem {
  code:
    | "unknown-edge-source"
    | "unknown-edge-target"
    | "missing-entry"
    | "unknown-interrupt-node"
    | "unknown-branch-target"
    | "unknown-ends-target"
    | "edge-from-end"
    | "edge-to-start";
  message: string;
}

/**
 * Checks a graph before it runs and reports every problem at once (thrown as one
 * `GraphValueError` with `details.problems`).
 */
export function validateGraph(
  graph: GraphDeclaration,
  interrupts: { before: string[]; after: string[] },
): void {
  const problems: GraphProblem[] = [];
  const known = (name: string) => graph.nodes.has(name);
  const checkSource = (source: string, what: string) => {
    if (source === END)
      problems.push({
        code: "edge-from-end",
        message: `${what} starts at END; nothing runs after END.`,
      });
    else if (source !== START && !known(source))
      problems.push({
        code: "unknown-edge-source",
        message: `${what} starts at unknown node "${source}".`,
      });
  };
  const checkTarget = (target: string, what: string) => {
    if (target === START)
      problems.push({
        code: "edge-to-start",
        message: `${what} ends at START; START cannot be a target.`,
      });
    else if (target !== END && !known(target))
      problems.push({
        code: "unknown-edge-target",
        message: `${what} ends at unknown node "${target}".`,
      });
  };
  for (const [source, target] of graph.edges) {
    checkSource(source, `Edge "${source}" → "${target}"`);
    checkTarget(target, `Edge "${source}" → "${target}"`);
  }
  for (const join of graph.joins) {
    const label = `Join [${join.sources.join(", ")}] → "${join.target}"`;
    for (const source of join.sources) checkSource(source, label);
    checkTarget(join.target, label);
  }
  for (const branch of graph.branches) {
    checkSource(branch.source, `Conditional edge from "${branch.source}"`);
    for (const target of Object.values(branch.pathMap ?? {})) {
      if (target !== END && !known(target)) {
        problems.push({
          code: "unknown-branch-target",
          message: `Conditional edge from "${branch.source}" maps to unknown node "${target}".`,
        });
      }
    }
  }
  for (const node of graph.nodes.values()) {
    for (const target of node.ends ?? []) {
      if (target !== END && !known(target))
        problems.push({
          code: "unknown-ends-target",
          message: `Node "${node.name}" declares ends target "${target}", which is not a node.`,
        });
    }
  }
  const hasEntry =
    graph.edges.some(([source]) => source === START) ||
    graph.joins.some((join) => join.sources.includes(START)) ||
    graph.branches.some((branch) => branch.source === START);
  if (!hasEntry)
    problems.push({
      code: "missing-entry",
      message: "The graph has no entry: nothing starts from START.",
    });
  for (const [kind, names] of [
    ["interruptBefore", interrupts.before],
    ["interruptAfter", interrupts.after],
  ] as const) {
    for (const name of names) {
      if (!known(name))
        problems.push({
          code: "unknown-interrupt-node",
          message: `${kind} names unknown node "${name}".`,
        });
    }
  }
  if (problems.length > 0) {
    throw new GraphValueError(`The graph is invalid: ${problems.map((p) => p.message).join(" ")}`, {
      details: { problems },
      hint: problems.some((p) => p.code === "missing-entry")
        ? 'Add an entry edge, e.g. .addEdge(START, "first").'
        : "Check the node names in addEdge/addConditionalEdges.",
    });
  }
}

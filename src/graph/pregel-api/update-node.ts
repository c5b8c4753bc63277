import { InvalidUpdateError } from "../errors.js";
import type { PregelNode } from "./node.js";

/**
 * The node a low-level Pregel `updateState` writes as, when the caller names none (LangGraph.js's
 * rule): the only node; before any node ran, the node named like the single input channel; else
 * the node that saw the newest channel version, if no other node saw that same version.
 */
export function chooseUpdateNode(
  nodes: Record<string, PregelNode>,
  inputChannels: string | string[],
  seen: Record<string, Record<string, number>>,
  asNode: string | undefined,
): string {
  let name = asNode;
  const names = Object.keys(nodes);
  if (name === undefined && names.length === 1) name = names[0];
  else if (name === undefined) {
    const seenBy = Object.entries(seen)
      .flatMap(([node, versions]) =>
        Object.values(versions).map((v): [number, string] => [v, node]),
      )
      .filter(([v]) => Boolean(v))
      .sort(([a], [b]) => a - b);
    if (seenBy.length === 0) {
      if (typeof inputChannels === "string" && Object.hasOwn(nodes, inputChannels))
        name = inputChannels;
    } else {
      const last = seenBy[seenBy.length - 1]!;
      const before = seenBy[seenBy.length - 2];
      if (before === undefined || before[0] !== last[0]) name = last[1];
    }
  }
  if (name === undefined) throw new InvalidUpdateError('Ambiguous update, specify "asNode"');
  const node = nodes[name];
  if (node === undefined) throw new InvalidUpdateError(`Node "${name}" does not exist`);
  if (node.writers.length === 0)
    throw new InvalidUpdateError(`No writers found for node "${name}"`);
  return name;
}

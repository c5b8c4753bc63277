import { resolveSchemas } from "../schema/resolve.js";
import type { GraphDeclaration, NodeAction } from "./declarations.js";

/**
 * A node's own input schema (`addNode(name, fn, { input })`, as in LangGraph.js): the keys it has
 * that the state lacks become channels of the graph (nodes write and read them; `invoke` does not
 * return them), and the node is called with its schema's keys only. Returns the node function to
 * register; nodes without an input schema are not wrapped.
 *
 * @example
 * builder.addNode("process", (s) => ({ messages: [...s.messages, s.query] }), { input: ProcessInput });
 */
export function withNodeInput(
  declaration: GraphDeclaration,
  input: unknown,
  action: NodeAction<never>,
): { action: NodeAction<never>; inputKeys: string[] } {
  const { channels } = resolveSchemas(input);
  const keys = Object.keys(channels);
  const schema = declaration.schema;
  const added = keys.filter((key) => !Object.hasOwn(schema, key));
  if (added.length > 0) {
    // The graph's input and output stay the state it had: the node's extra keys are internal.
    declaration.outputKeys ??= Object.keys(schema);
    declaration.inputKeys ??= Object.keys(schema);
    for (const key of added) schema[key] = channels[key]!;
  }
  const pick = (state: never): never => pickKeys(state, keys) as never;
  // An async node stays async: such nodes get the interrupt() context in every run.
  const wrapped: NodeAction<never> =
    action.constructor.name === "AsyncFunction"
      ? async (state, config) => action(pick(state), config)
      : (state, config) => action(pick(state), config);
  return { action: wrapped, inputKeys: keys };
}

/**
 * The keys of `state` a node's input schema names (those the state has). Also what an error
 * handler gets for a failed node with an input schema, as in LangGraph.js.
 *
 * @example
 * pickKeys({ a: 1, b: 2 }, ["a"]); // { a: 1 }
 */
export function pickKeys(state: unknown, keys: readonly string[]): Record<string, unknown> {
  const own: Record<string, unknown> = {};
  const full = state as Record<string, unknown>;
  for (const key of keys) if (Object.hasOwn(full, key)) own[key] = full[key];
  return own;
}

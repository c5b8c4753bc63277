/** What `new StateGraph(state, options)` was given, kept for the JSON-schema helpers of `keel/zod`. */
export interface GraphSchemaSources {
  state: unknown;
  options: unknown;
}

const sources = new WeakMap<object, GraphSchemaSources>();

/** Remembers a builder's (or its compiled graph's) schema arguments; costs a run nothing. */
export function recordSchemaSources(graph: object, given: GraphSchemaSources | undefined): void {
  if (given !== undefined) sources.set(graph, given);
}

export function schemaSourcesOf(graph: unknown): GraphSchemaSources | undefined {
  return typeof graph === "object" && graph !== null ? sources.get(graph) : undefined;
}

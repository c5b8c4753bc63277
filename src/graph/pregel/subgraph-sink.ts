import type { StreamMode } from "../types.js";

/**
 * A parent run streamed with `subgraphs: true`: its subgraphs stream the same modes to it, tagged
 * with their namespace (`["node:taskId", …]`, as LangGraph.js). A file of its own: tasks carry a
 * sink, and the stream hooks import the loop, which imports tasks.
 */
export interface SubgraphSink {
  modes: readonly StreamMode[];
  emit(namespace: string[], mode: StreamMode, chunk: unknown): void;
}

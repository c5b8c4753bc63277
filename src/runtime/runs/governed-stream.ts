import { KeelError } from "../../core/index.js";
import { INTERRUPT, type RunConfig, type StreamMode } from "../../graph/index.js";

/**
 * What a governed run streams while it runs (`runtime.start({ …, stream })`, `runtime.resume(…,
 * { stream })`): the chunks `graph.stream` would yield for `streamMode`, handed to `onChunk` in
 * order. `"messages"` gives the model's tokens as `[messageChunk, metadata]` while it answers.
 *
 * @example
 * await runtime.start({ graph: agent, input, autonomy: "A2", stream: {
 *   streamMode: "messages", onChunk: ([token]) => process.stdout.write(String(token.content)) } });
 */
export interface GovernedStream {
  /** As `graph.stream`'s `streamMode`: one mode (chunks as they are) or several (`[mode, chunk]`). */
  streamMode: StreamMode | StreamMode[];
  /** Subgraphs' chunks too, as `[namespace, chunk]` (or `[namespace, mode, chunk]`). */
  subgraphs?: boolean;
  /** Called with each chunk; the run waits for it (a slow consumer slows the run, loses nothing). */
  onChunk(chunk: never): void | Promise<void>;
}

/** A graph that streams (Keel's CompiledStateGraph does). */
export interface StreamingGraph {
  stream(input: unknown, config?: RunConfig): Promise<AsyncIterable<unknown>>;
}

/**
 * Runs `graph` as `graph.stream` with `stream`'s modes plus `values`, hands the chunks the caller
 * asked for to `onChunk`, and returns what `graph.invoke` would have: the last state, with
 * `__interrupt__` when the run paused (the runtime reads its pauses from it).
 */
export async function invokeStreaming(
  graph: Partial<StreamingGraph>,
  input: unknown,
  config: RunConfig,
  stream: GovernedStream,
): Promise<unknown> {
  if (typeof graph.stream !== "function") {
    throw new KeelError("INVALID_ARGUMENT", "This graph cannot stream: it has no stream method.", {
      hint: "Pass a compiled graph (StateGraph.compile()), or leave out the stream option.",
    });
  }
  const wanted: StreamMode[] = Array.isArray(stream.streamMode)
    ? stream.streamMode
    : [stream.streamMode];
  // An unknown mode is refused by graph.stream itself (STREAM_MODE_UNKNOWN).
  if (wanted.length === 0) {
    throw new KeelError("INVALID_ARGUMENT", "A governed run's stream needs at least one mode.", {
      hint: 'Give streamMode, e.g. "messages" for the model\'s tokens.',
    });
  }
  const tagged = Array.isArray(stream.streamMode);
  const subgraphs = stream.subgraphs === true;
  const modes = wanted.includes("values") ? wanted : [...wanted, "values" as const];
  const onChunk = stream.onChunk as (chunk: unknown) => void | Promise<void>;
  let state: Record<string, unknown> = {};
  let interrupts: unknown[] | undefined;
  for await (const raw of await graph.stream(input, { ...config, streamMode: modes, subgraphs })) {
    const parts = raw as unknown[];
    const namespace = (subgraphs ? parts[0] : []) as string[];
    const mode = parts[subgraphs ? 1 : 0] as StreamMode;
    const chunk = parts[subgraphs ? 2 : 1];
    if (mode === "values" && namespace.length === 0) {
      const values = chunk as Record<string, unknown>;
      // Each task that paused announces its interrupts in a values chunk of its own (a static
      // pause announces none): the run's interrupts are all of them.
      if (Object.hasOwn(values, INTERRUPT))
        interrupts = [...(interrupts ?? []), ...(values[INTERRUPT] as unknown[])];
      else state = values;
    }
    if (!wanted.includes(mode)) continue;
    const shown = tagged ? [mode, chunk] : chunk;
    await onChunk(subgraphs ? (tagged ? [namespace, mode, chunk] : [namespace, chunk]) : shown);
  }
  return interrupts === undefined ? state : { ...state, [INTERRUPT]: interrupts };
}

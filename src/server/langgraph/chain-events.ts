import type { LiveRun } from "./live-run.js";
import { toWire } from "./wire.js";

/** One event of the `events` stream mode: LangChain's `streamEvents` (v2) shape. */
export interface ChainEvent {
  event: string;
  name: string;
  run_id: string;
  tags: string[];
  metadata: Record<string, unknown>;
  parent_ids: string[];
  data: Record<string, unknown>;
}

/**
 * The `events` stream mode, as LangGraph's server sends it (each event is LangChain's
 * `streamEvents` v2 record), built from what Keel's engine reports rather than from LangChain
 * callbacks: the graph's `on_chain_start`, an `on_chain_stream` per state it streams and its
 * `on_chain_end`; each task's `on_chain_start` and `on_chain_end` (from the engine's task
 * events: its input, and its output or error); and an `on_chat_model_stream` per token a
 * LangChain chat model streams inside a node. Tool, retriever and prompt events, and a chat
 * model's own start and end, are not reported (the engine does not see them).
 */
export class ChainEvents {
  /** The tasks started and not ended: their names and step, for their end and their tokens. */
  private readonly tasks = new Map<string, { name: string; step: number }>();

  constructor(
    private readonly live: LiveRun,
    private readonly graphName: string,
    private readonly meta: Record<string, unknown>,
  ) {}

  /** The graph starts with its input. */
  start(input: unknown): void {
    this.emit("on_chain_start", this.graphName, this.live.runId, [], [], {
      input: toWire(input ?? null),
    });
  }

  /** A state the graph streams (`values`). */
  values(chunk: unknown): void {
    this.emit("on_chain_stream", this.graphName, this.live.runId, [], [], {
      chunk: toWire(chunk),
    });
  }

  /** The graph ends with its output (or its error). */
  end(output: unknown, error?: { error: string; message: string }): void {
    this.emit(
      error ? "on_chain_error" : "on_chain_end",
      this.graphName,
      this.live.runId,
      [],
      [],
      error ? { error } : { output: toWire(output) },
    );
  }

  /** An engine `debug` event: a task starts or ends. */
  fromDebug(chunk: Record<string, unknown>): void {
    const payload = chunk.payload as Record<string, unknown> | undefined;
    if (!payload || typeof payload.id !== "string" || typeof payload.name !== "string") return;
    const step = typeof chunk.step === "number" ? chunk.step : 0;
    const { id, name } = payload;
    const tags = [`graph:step:${step}`];
    const metadata = this.taskMetadata(name, step, payload.triggers);
    if (chunk.type === "task") {
      this.tasks.set(id, { name, step });
      this.emit(
        "on_chain_start",
        name,
        id,
        tags,
        [this.live.runId],
        {
          input: toWire(payload.input ?? null),
        },
        metadata,
      );
    } else if (chunk.type === "task_result") {
      this.tasks.delete(id);
      const error = payload.error;
      this.emit(
        error ? "on_chain_error" : "on_chain_end",
        name,
        id,
        tags,
        [this.live.runId],
        error ? { error: toWire(error) } : { output: toWire(outputOf(payload.result)) },
        metadata,
      );
    }
  }

  /** A `[chunk, metadata]` of the engine's `messages` mode: a token of a chat model. */
  fromMessage(item: unknown): void {
    const [message, metadata] = item as [unknown, Record<string, unknown>];
    const wire = toWire(message) as { id?: string };
    const node = typeof metadata?.langgraph_node === "string" ? metadata.langgraph_node : "";
    const task = [...this.tasks.entries()].find(([, t]) => t.name === node);
    const model =
      typeof metadata?.ls_model_name === "string" ? metadata.ls_model_name : "chat_model";
    this.emit(
      "on_chat_model_stream",
      model,
      wire.id ?? `${this.live.runId}:${node}`,
      [],
      task ? [this.live.runId, task[0]] : [this.live.runId],
      { chunk: wire },
      { ...this.meta, ...metadata },
    );
  }

  private taskMetadata(name: string, step: number, triggers: unknown): Record<string, unknown> {
    return {
      ...this.meta,
      langgraph_step: step,
      langgraph_node: name,
      langgraph_triggers: Array.isArray(triggers) ? triggers : [],
      langgraph_path: ["__pregel_pull", name],
    };
  }

  private emit(
    event: string,
    name: string,
    runId: string,
    tags: string[],
    parentIds: string[],
    data: Record<string, unknown>,
    metadata: Record<string, unknown> = this.meta,
  ): void {
    const record: ChainEvent = {
      event,
      name,
      run_id: runId,
      tags,
      metadata,
      parent_ids: parentIds,
      data,
    };
    this.live.emit("events", record);
  }
}

/** A task's writes (`[channel, value]` pairs) as the object its node returned. */
function outputOf(result: unknown): unknown {
  if (
    Array.isArray(result) &&
    result.every((pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string")
  )
    return Object.fromEntries(result as Array<[string, unknown]>);
  return result ?? null;
}

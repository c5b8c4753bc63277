import type { RunRecord } from "../../checkpoint/index.js";
import type { StateSnapshot } from "../../graph/index.js";
import type { ApiRun, ApiThread } from "./api-records.js";

/** LangChain message classes by their serialised name → the API's `type`. */
const MESSAGE_TYPES: Record<string, string> = {
  HumanMessage: "human",
  HumanMessageChunk: "human",
  AIMessage: "ai",
  AIMessageChunk: "ai",
  SystemMessage: "system",
  SystemMessageChunk: "system",
  ToolMessage: "tool",
  ToolMessageChunk: "tool",
  ChatMessage: "chat",
  FunctionMessage: "function",
  RemoveMessage: "remove",
};

/**
 * A value as the LangGraph API sends it: LangChain messages (which serialise as
 * `{lc, type: "constructor", id, kwargs}`) become the plain `{type, content, id, …}` dicts the
 * SDK expects; everything else is JSON as is.
 */
export function toWire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, messageReplacer) ?? "null");
}

function messageReplacer(_key: string, value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const v = value as { lc?: unknown; type?: unknown; id?: unknown; kwargs?: unknown };
  if (
    v.lc === 1 &&
    v.type === "constructor" &&
    Array.isArray(v.id) &&
    typeof v.kwargs === "object"
  ) {
    const name = String(v.id.at(-1));
    const type = MESSAGE_TYPES[name];
    if (type) return { ...(v.kwargs as Record<string, unknown>), type };
  }
  return value;
}

/** Unix ms → ISO 8601. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Keel's run status as the LangGraph API names it. */
export function apiRunStatus(status: RunRecord["status"]): string {
  switch (status) {
    case "pending":
      return "pending";
    case "running":
      return "running";
    case "succeeded":
      return "success";
    case "failed":
      return "error";
    case "paused":
    case "canceled":
      return "interrupted";
  }
}

/** A run as the API returns it (`keel_status` keeps Keel's own, finer status). */
export function runJson(record: RunRecord, api: ApiRun): Record<string, unknown> {
  return {
    run_id: record.id,
    thread_id: record.threadId,
    assistant_id: api.assistantId,
    created_at: iso(record.createdAt),
    updated_at: iso(record.updatedAt),
    status: apiRunStatus(record.status),
    keel_status: record.status,
    metadata: api.metadata,
    multitask_strategy: "reject",
    kwargs: api.kwargs,
    trace_id: record.traceId,
    error: record.error,
  };
}

/** A checkpoint's address as the API returns it. */
export function checkpointJson(
  config: StateSnapshot["config"] | undefined,
): Record<string, unknown> | null {
  const c = config?.configurable;
  if (!c?.checkpoint_id) return null;
  return {
    thread_id: c.thread_id,
    checkpoint_ns: c.checkpoint_ns ?? "",
    checkpoint_id: c.checkpoint_id,
    checkpoint_map: null,
  };
}

/** A state snapshot as the API's ThreadState. */
export function stateJson(snapshot: StateSnapshot): Record<string, unknown> {
  return {
    values: toWire(snapshot.values),
    next: snapshot.next,
    checkpoint: checkpointJson(snapshot.config),
    metadata: toWire(snapshot.metadata ?? {}),
    created_at: snapshot.createdAt ?? null,
    parent_checkpoint: checkpointJson(snapshot.parentConfig),
    tasks: snapshot.tasks.map((task) => ({
      id: task.id,
      name: task.name,
      error: task.error === undefined ? null : String((task.error as Error)?.message ?? task.error),
      interrupts: toWire(task.interrupts),
      checkpoint: null,
      state: null,
      result: task.result === undefined ? null : toWire(task.result),
    })),
  };
}

/** A thread as the API returns it. */
export function threadJson(
  thread: ApiThread,
  status: string,
  values: unknown,
  interrupts: Record<string, unknown[]>,
): Record<string, unknown> {
  return {
    thread_id: thread.threadId,
    created_at: iso(thread.createdAt),
    updated_at: iso(thread.updatedAt),
    metadata: thread.metadata,
    status,
    values: toWire(values),
    interrupts: toWire(interrupts),
  };
}

import type { ServerContext } from "../context.js";
import type { ApiThread } from "./api-records.js";
import type { Assistant } from "./assistants.js";
import { threadJson, toWire } from "./wire.js";

/** The assistant whose graph reads a thread: its latest run's, else its `graph_id` metadata. */
export async function assistantOfThread(
  ctx: ServerContext,
  thread: ApiThread,
): Promise<Assistant | undefined> {
  const [latest] = await ctx.records.runsOfThread(thread.threadId, 1, 0);
  const id = latest?.assistantId ?? (thread.metadata.graph_id as string | undefined);
  return id === undefined ? undefined : ctx.assistants.get(id);
}

/** A thread with its status, values and pending interrupts, as the API returns it. */
export async function threadView(
  ctx: ServerContext,
  thread: ApiThread,
): Promise<Record<string, unknown>> {
  const [run] = await ctx.runs.list({ threadId: thread.threadId, limit: 1 });
  const assistant = await assistantOfThread(ctx, thread);
  let values: unknown = {};
  const interrupts: Record<string, unknown[]> = {};
  if (assistant) {
    const snapshot = await assistant.graph.getState({
      configurable: { thread_id: thread.threadId },
    });
    values = snapshot.values;
    for (const task of snapshot.tasks)
      if (task.interrupts.length) interrupts[task.id] = task.interrupts;
  }
  const status =
    run && (run.status === "pending" || run.status === "running")
      ? "busy"
      : Object.keys(interrupts).length > 0
        ? "interrupted"
        : run?.status === "failed"
          ? "error"
          : "idle";
  return threadJson(thread, status, toWire(values), interrupts);
}

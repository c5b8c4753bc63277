import { z } from "zod";
import type { CheckpointTuple, PendingWrite } from "../../checkpoint/index.js";
import { KeelError } from "../../core/index.js";
import type { ServerContext } from "../context.js";
import { assistantOfThread, threadView } from "../langgraph/thread-view.js";
import { stateJson } from "../langgraph/wire.js";
import { PathId, type RouteTable } from "../route.js";

const Metadata = z.record(z.string(), z.unknown());
const Thread = z
  .record(z.string(), z.unknown())
  .describe("A thread (thread_id, status, values, metadata, …)");
const ThreadState = z
  .record(z.string(), z.unknown())
  .describe("A thread state (values, next, checkpoint, tasks, …)");
const CheckpointRef = z.looseObject({
  checkpoint_id: PathId.optional(),
  checkpoint_ns: z.string().optional(),
});

const CreateThread = z.looseObject({
  thread_id: PathId.optional(),
  metadata: Metadata.optional(),
  if_exists: z.enum(["raise", "do_nothing"]).optional(),
});
const SearchThreads = z.looseObject({
  ids: z.array(PathId).optional(),
  metadata: Metadata.optional(),
  status: z.enum(["idle", "busy", "interrupted", "error"]).optional(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
});
const UpdateState = z.looseObject({
  values: z.unknown().optional(),
  as_node: z.string().optional(),
  checkpoint_id: PathId.optional(),
  checkpoint: CheckpointRef.optional(),
});
const History = z.looseObject({
  limit: z.number().int().min(1).max(1000).default(10),
  before: z.union([PathId, CheckpointRef]).optional(),
  metadata: Metadata.optional(),
  checkpoint: CheckpointRef.optional(),
});

/** Threads: create, read, search, state, history, update state, copy, delete. */
export function threadRoutes(table: RouteTable, ctx: ServerContext): void {
  const graphOf = async (threadId: string) => {
    const thread = await ctx.records.getThread(threadId);
    const assistant = await assistantOfThread(ctx, thread);
    if (!assistant) {
      throw new KeelError("ASSISTANT_NOT_FOUND", `Thread "${threadId}" has no graph yet.`, {
        hint: "Start a run on it, or create it with metadata.graph_id.",
      });
    }
    return assistant.graph;
  };
  const assertIdle = async (threadId: string) => {
    const active = [
      ...(await ctx.runs.list({ threadId, status: "running", limit: 1 })),
      ...(await ctx.runs.list({ threadId, status: "pending", limit: 1 })),
    ];
    if (active.length > 0) {
      throw new KeelError("THREAD_BUSY", `Thread "${threadId}" has a run in progress.`, {
        details: { threadId, runId: active[0]?.id },
        hint: "Wait for the run or cancel it first.",
      });
    }
  };

  table.add(
    {
      method: "post",
      path: "/threads",
      capability: "runs",
      summary: "Create a thread.",
      tag: "threads",
      body: CreateThread,
      response: Thread,
    },
    async (c, { body }) => {
      if (body.thread_id) {
        const existing = await ctx.records.findThread(body.thread_id);
        if (existing) {
          if (body.if_exists === "do_nothing") return c.json(await threadView(ctx, existing));
          throw new KeelError("DUPLICATE", `Thread "${body.thread_id}" exists.`, {
            hint: 'Pass if_exists: "do_nothing" to reuse it.',
          });
        }
      }
      const thread = await ctx.records.createThread({
        ...(body.thread_id ? { threadId: body.thread_id } : {}),
        metadata: body.metadata ?? {},
      });
      ctx.bus.publish("thread.created", { thread_id: thread.threadId });
      return c.json(await threadView(ctx, thread));
    },
  );
  table.add(
    {
      method: "post",
      path: "/threads/search",
      capability: "read",
      summary: "Search threads by id, metadata and status.",
      tag: "threads",
      body: SearchThreads,
      response: z.array(Thread),
    },
    async (c, { body }) => {
      // Status is computed per thread, so it filters after the page is read.
      const threads = await ctx.records.searchThreads({
        ...(body.ids ? { ids: body.ids } : {}),
        ...(body.metadata ? { metadata: body.metadata } : {}),
        limit: body.status ? 10_000 : body.limit,
        offset: body.status ? 0 : body.offset,
      });
      let views = await Promise.all(threads.map((t) => threadView(ctx, t)));
      if (body.status)
        views = views
          .filter((v) => v.status === body.status)
          .slice(body.offset, body.offset + body.limit);
      return c.json(views);
    },
  );
  table.add(
    {
      method: "post",
      path: "/threads/count",
      capability: "read",
      summary: "Count threads.",
      tag: "threads",
      body: SearchThreads,
      response: z.number(),
    },
    async (c, { body }) => {
      const threads = await ctx.records.searchThreads({
        ...(body.metadata ? { metadata: body.metadata } : {}),
        limit: 1_000_000,
        offset: 0,
      });
      return c.json(threads.length);
    },
  );
  table.add(
    {
      method: "get",
      path: "/threads/{thread_id}",
      capability: "read",
      summary: "One thread.",
      tag: "threads",
      response: Thread,
    },
    async (c, { params }) =>
      c.json(await threadView(ctx, await ctx.records.getThread(params.thread_id ?? ""))),
  );
  table.add(
    {
      method: "patch",
      path: "/threads/{thread_id}",
      capability: "runs",
      summary: "Merge metadata into a thread.",
      tag: "threads",
      body: z.looseObject({ metadata: Metadata.optional() }),
      response: Thread,
    },
    async (c, { params, body }) =>
      c.json(
        await threadView(
          ctx,
          await ctx.records.patchThread(params.thread_id ?? "", body.metadata ?? {}),
        ),
      ),
  );
  table.add(
    {
      method: "delete",
      path: "/threads/{thread_id}",
      capability: "runs",
      summary: "Delete a thread: checkpoints, runs and metadata.",
      tag: "threads",
    },
    async (c, { params }) => {
      const threadId = params.thread_id ?? "";
      await ctx.records.getThread(threadId);
      await assertIdle(threadId);
      await ctx.saver.deleteThreadAndRuns(threadId).catch((error: { code?: string }) => {
        if (error.code !== "THREAD_NOT_FOUND") throw error;
      });
      await ctx.records.deleteThread(threadId);
      ctx.bus.publish("thread.deleted", { thread_id: threadId });
      return c.body(null, 204);
    },
  );
  table.add(
    {
      method: "post",
      path: "/threads/{thread_id}/copy",
      capability: "runs",
      summary: "Copy a thread with all its checkpoints.",
      tag: "threads",
      response: Thread,
    },
    async (c, { params }) => {
      const source = await ctx.records.getThread(params.thread_id ?? "");
      const copy = await ctx.records.createThread({ metadata: source.metadata });
      await copyCheckpoints(ctx, source.threadId, copy.threadId);
      const [latest] = await ctx.records.runsOfThread(source.threadId, 1, 0);
      if (latest) {
        // The copy remembers its graph through metadata (it has no run of its own).
        await ctx.records.patchThread(copy.threadId, { graph_id: latest.assistantId });
      }
      return c.json(await threadView(ctx, await ctx.records.getThread(copy.threadId)));
    },
  );
  const getState = async (threadId: string, checkpointId?: string) => {
    const graph = await graphOf(threadId);
    const snapshot = await graph.getState({
      configurable: {
        thread_id: threadId,
        ...(checkpointId ? { checkpoint_id: checkpointId } : {}),
      },
    });
    if (checkpointId && snapshot.config.configurable?.checkpoint_id !== checkpointId) {
      throw new KeelError(
        "CHECKPOINT_NOT_FOUND",
        `Thread "${threadId}" has no checkpoint "${checkpointId}".`,
      );
    }
    return stateJson(snapshot);
  };
  table.add(
    {
      method: "get",
      path: "/threads/{thread_id}/state",
      capability: "read",
      summary: "The thread's latest state.",
      tag: "threads",
      response: ThreadState,
    },
    async (c, { params }) => c.json(await getState(params.thread_id ?? "")),
  );
  table.add(
    {
      method: "get",
      path: "/threads/{thread_id}/state/{checkpoint_id}",
      capability: "read",
      summary: "The thread's state at a checkpoint.",
      tag: "threads",
      response: ThreadState,
    },
    async (c, { params }) => c.json(await getState(params.thread_id ?? "", params.checkpoint_id)),
  );
  table.add(
    {
      method: "post",
      path: "/threads/{thread_id}/state/checkpoint",
      capability: "read",
      summary: "The thread's state at a checkpoint given in the body.",
      tag: "threads",
      body: z.looseObject({ checkpoint: CheckpointRef }),
      response: ThreadState,
    },
    async (c, { params, body }) =>
      c.json(await getState(params.thread_id ?? "", body.checkpoint.checkpoint_id)),
  );
  table.add(
    {
      method: "post",
      path: "/threads/{thread_id}/state",
      capability: "runs",
      summary: "Update the thread's state as a node (time travel: from a past checkpoint, a fork).",
      tag: "threads",
      body: UpdateState,
      response: z.object({
        checkpoint: z.record(z.string(), z.unknown()),
        configurable: z.record(z.string(), z.unknown()),
      }),
    },
    async (c, { params, body }) => {
      const threadId = params.thread_id ?? "";
      const graph = await graphOf(threadId);
      await assertIdle(threadId);
      const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id;
      const values = body.values === undefined ? null : body.values;
      const config = await graph.updateState(
        {
          configurable: {
            thread_id: threadId,
            ...(checkpointId ? { checkpoint_id: checkpointId } : {}),
          },
        },
        values as Record<string, unknown> | null,
        body.as_node,
      );
      await ctx.records.touchThread(threadId);
      ctx.bus.publish("thread.updated", { thread_id: threadId });
      const checkpoint = {
        ...config.configurable,
        checkpoint_ns: config.configurable?.checkpoint_ns ?? "",
      };
      // The platform answers `checkpoint`; the SDK's type reads `configurable`: both are sent.
      return c.json({ checkpoint, configurable: checkpoint });
    },
  );
  table.add(
    {
      method: "post",
      path: "/threads/{thread_id}/history",
      capability: "read",
      summary: "The thread's states, newest first.",
      tag: "threads",
      body: History,
      response: z.array(ThreadState),
    },
    async (c, { params, body }) => {
      const threadId = params.thread_id ?? "";
      const graph = await graphOf(threadId);
      const before = typeof body.before === "string" ? body.before : body.before?.checkpoint_id;
      const states = [];
      for await (const snapshot of graph.getStateHistory(
        {
          configurable: {
            thread_id: threadId,
            ...(body.checkpoint?.checkpoint_id
              ? { checkpoint_id: body.checkpoint.checkpoint_id }
              : {}),
          },
        },
        {
          limit: body.limit,
          ...(before
            ? { before: { configurable: { thread_id: threadId, checkpoint_id: before } } }
            : {}),
          ...(body.metadata ? { filter: body.metadata } : {}),
        },
      )) {
        states.push(stateJson(snapshot));
      }
      return c.json(states);
    },
  );
}

/** Copies every checkpoint of a thread, oldest first, with its pending writes, to another. */
async function copyCheckpoints(ctx: ServerContext, from: string, to: string): Promise<void> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of ctx.saver.list({ configurable: { thread_id: from } }))
    tuples.push(tuple);
  tuples.reverse();
  for (const tuple of tuples) {
    const ns = tuple.config.configurable.checkpoint_ns ?? "";
    const parent = tuple.parentConfig?.configurable?.checkpoint_id;
    const saved = await ctx.saver.put(
      {
        configurable: {
          thread_id: to,
          checkpoint_ns: ns,
          ...(parent ? { checkpoint_id: parent } : {}),
        },
        durability: "sync",
      },
      tuple.checkpoint,
      tuple.metadata,
      { ...tuple.checkpoint.channel_versions },
    );
    const byTask = new Map<string, PendingWrite[]>();
    for (const [taskId, channel, value] of tuple.pendingWrites) {
      byTask.set(taskId, [...(byTask.get(taskId) ?? []), [channel, value]]);
    }
    for (const [taskId, writes] of byTask)
      await ctx.saver.putWrites({ ...saved, durability: "sync" }, writes, taskId);
  }
  await ctx.saver.flush();
}

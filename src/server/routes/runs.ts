import type { Context } from "hono";
import { z } from "zod";
import { KeelError } from "../../core/index.js";
import type { ServerContext } from "../context.js";
import type { RunKwargs } from "../langgraph/api-records.js";
import { LiveRun } from "../langgraph/live-run.js";
import type { RunOutcome } from "../langgraph/run-manager.js";
import { streamRun } from "../langgraph/sse.js";
import { STREAM_MODES } from "../langgraph/stream-modes.js";
import { runJson } from "../langgraph/wire.js";
import { PathId, type RouteTable } from "../route.js";

const Nodes = z.union([z.array(z.string()), z.literal("*")]);

/** The LangGraph run-create body (keys the SDK sends and Keel does not use are ignored). */
const CreateRun = z.looseObject({
  assistant_id: z.string().min(1),
  input: z.unknown().optional(),
  command: z
    .looseObject({
      resume: z.unknown().optional(),
      update: z.unknown().optional(),
      goto: z.unknown().optional(),
    })
    .nullable()
    .optional(),
  config: z
    .looseObject({
      configurable: z.record(z.string(), z.unknown()).optional(),
      recursion_limit: z.number().int().min(1).optional(),
      tags: z.array(z.string()).optional(),
    })
    .optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  stream_mode: z.union([z.enum(STREAM_MODES), z.array(z.enum(STREAM_MODES))]).optional(),
  interrupt_before: Nodes.optional(),
  interrupt_after: Nodes.optional(),
  checkpoint_id: PathId.optional(),
  checkpoint: z.looseObject({ checkpoint_id: PathId.optional() }).optional(),
  multitask_strategy: z.literal("reject").optional(),
  if_not_exists: z.enum(["create", "reject"]).optional(),
  on_completion: z.enum(["delete", "keep"]).optional(),
  on_disconnect: z.enum(["cancel", "continue"]).optional(),
  stream_subgraphs: z.boolean().optional(),
  durability: z.enum(["sync", "async", "exit"]).optional(),
});
type CreateRun = z.output<typeof CreateRun>;

const Run = z.record(z.string(), z.unknown()).describe("A run (run_id, thread_id, status, …)");
const Values = z
  .record(z.string(), z.unknown())
  .describe("The thread's values at the end of the run");

/** Runs: create (background, wait, stream), list, get, join, join the stream, cancel, delete. */
export function runRoutes(table: RouteTable, ctx: ServerContext): void {
  const create = async (threadId: string | null, body: CreateRun) => {
    let id = threadId;
    if (id === null) {
      id = (await ctx.records.createThread({ metadata: { graph_id: body.assistant_id } })).threadId;
    } else if (!(await ctx.records.findThread(id))) {
      if (body.if_not_exists !== "create") await ctx.records.getThread(id);
      await ctx.records.createThread({ threadId: id, metadata: { graph_id: body.assistant_id } });
    }
    const modes =
      body.stream_mode === undefined
        ? ["values"]
        : Array.isArray(body.stream_mode)
          ? body.stream_mode
          : [body.stream_mode];
    const kwargs: RunKwargs = {
      ...(body.input !== undefined ? { input: body.input } : {}),
      ...(body.command ? { command: body.command } : {}),
      ...(body.config ? { config: body.config } : {}),
      stream_mode: modes,
      ...(body.interrupt_before ? { interrupt_before: body.interrupt_before } : {}),
      ...(body.interrupt_after ? { interrupt_after: body.interrupt_after } : {}),
      ...((body.checkpoint_id ?? body.checkpoint?.checkpoint_id)
        ? { checkpoint_id: body.checkpoint_id ?? body.checkpoint?.checkpoint_id }
        : {}),
      ...(body.durability ? { durability: body.durability } : {}),
      ...(body.on_disconnect ? { on_disconnect: body.on_disconnect } : {}),
      ...(body.stream_subgraphs ? { stream_subgraphs: true } : {}),
      // A stateless run's thread is deleted after it unless on_completion says keep.
      ...(threadId === null && body.on_completion !== "keep" ? { delete_thread: true } : {}),
    };
    return ctx.manager.create(id, body.assistant_id, kwargs, body.metadata ?? {});
  };
  const location = (c: Context, threadId: string, runId: string) =>
    c.header("Content-Location", `/threads/${threadId}/runs/${runId}`);
  const outcomeBody = (outcome: RunOutcome) =>
    outcome.error ? { __error__: outcome.error } : outcome.values;

  for (const stateless of [false, true]) {
    const base = stateless ? "/runs" : "/threads/{thread_id}/runs";
    table.add(
      {
        method: "post",
        path: base,
        capability: "runs",
        summary: "Create a run in the background.",
        tag: "runs",
        body: CreateRun,
        response: Run,
      },
      async (c, { params, body }) => {
        const { record, api } = await create(stateless ? null : (params.thread_id ?? ""), body);
        location(c, record.threadId, record.id);
        return c.json(runJson(record, api));
      },
    );
    table.add(
      {
        method: "post",
        path: `${base}/wait`,
        capability: "runs",
        summary: "Create a run and wait for its end; answers the thread's final values.",
        tag: "runs",
        body: CreateRun,
        response: Values,
      },
      async (c, { params, body }) => {
        const { record } = await create(stateless ? null : (params.thread_id ?? ""), body);
        location(c, record.threadId, record.id);
        return c.json(outcomeBody(await ctx.manager.wait(record.id, c.req.raw.signal)));
      },
    );
    table.add(
      {
        method: "post",
        path: `${base}/stream`,
        capability: "runs",
        summary:
          "Create a run and stream it over SSE (values, updates, messages, messages-tuple, custom, debug).",
        tag: "runs",
        body: CreateRun,
        sse: true,
      },
      async (c, { params, body }) => {
        const { record, api, live } = await create(
          stateless ? null : (params.thread_id ?? ""),
          body,
        );
        location(c, record.threadId, record.id);
        c.header("Location", `/threads/${record.threadId}/runs/${record.id}/stream`);
        return streamRun(c, live, api.kwargs.stream_mode, {
          onDisconnect: () => {
            if (api.kwargs.on_disconnect === "cancel" && !live.isFinished)
              void ctx.manager.cancel(record.id, false).catch(() => {});
          },
        });
      },
    );
  }

  const runOf = async (threadId: string, runId: string) => {
    const api = await ctx.records.findRun(runId);
    if (!api || api.threadId !== threadId) {
      throw new KeelError("RUN_NOT_FOUND", `No run "${runId}" on thread "${threadId}".`, {
        details: { threadId, runId },
        hint: "List the thread's runs with GET /threads/{thread_id}/runs.",
      });
    }
    return { api, record: await ctx.runs.get(runId) };
  };

  table.add(
    {
      method: "get",
      path: "/threads/{thread_id}/runs",
      capability: "read",
      summary: "A thread's runs, newest first.",
      tag: "runs",
      query: z.looseObject({
        limit: z.coerce.number().int().min(1).max(1000).default(10),
        offset: z.coerce.number().int().min(0).default(0),
        status: z.string().optional(),
      }),
      response: z.array(Run),
    },
    async (c, { params, query }) => {
      const threadId = params.thread_id ?? "";
      await ctx.records.getThread(threadId);
      const apis = await ctx.records.runsOfThread(threadId, query.limit, query.offset);
      const runs = await Promise.all(
        apis.map(async (api) => runJson(await ctx.runs.get(api.runId), api)),
      );
      return c.json(query.status ? runs.filter((r) => r.status === query.status) : runs);
    },
  );
  table.add(
    {
      method: "get",
      path: "/threads/{thread_id}/runs/{run_id}",
      capability: "read",
      summary: "One run.",
      tag: "runs",
      response: Run,
    },
    async (c, { params }) => {
      const { api, record } = await runOf(params.thread_id ?? "", params.run_id ?? "");
      return c.json(runJson(record, api));
    },
  );
  table.add(
    {
      method: "get",
      path: "/threads/{thread_id}/runs/{run_id}/join",
      capability: "read",
      summary: "Wait for a run's end; answers the thread's final values.",
      tag: "runs",
      response: Values,
    },
    async (c, { params }) => {
      const { record } = await runOf(params.thread_id ?? "", params.run_id ?? "");
      return c.json(outcomeBody(await ctx.manager.wait(record.id, c.req.raw.signal)));
    },
  );
  table.add(
    {
      method: "get",
      path: "/threads/{thread_id}/runs/{run_id}/stream",
      capability: "read",
      summary: "Join a run's stream (replayed from the start, or after Last-Event-ID).",
      tag: "runs",
      query: z.looseObject({ stream_mode: z.union([z.string(), z.array(z.string())]).optional() }),
      sse: true,
    },
    async (c, { params, query }) => {
      const { api, record } = await runOf(params.thread_id ?? "", params.run_id ?? "");
      const live = ctx.manager.liveRun(record.id);
      const modes =
        query.stream_mode === undefined
          ? api.kwargs.stream_mode
          : ([] as string[]).concat(query.stream_mode);
      if (!live) {
        // Not executing here (finished long ago, or in another process): its end, as an event.
        const outcome = await ctx.manager.wait(record.id, c.req.raw.signal);
        const done = new LiveRun(record.id, record.threadId);
        done.emit("values", outcome.values);
        if (outcome.error) done.emit("error", outcome.error);
        done.finish();
        return streamRun(c, done, modes);
      }
      const last = Number(c.req.header("last-event-id"));
      return streamRun(c, live, modes, Number.isInteger(last) ? { lastEventId: last } : {});
    },
  );
  table.add(
    {
      method: "post",
      path: "/threads/{thread_id}/runs/{run_id}/cancel",
      capability: "runs",
      summary: "Cancel a run (action=interrupt; the thread keeps its checkpoints).",
      tag: "runs",
      query: z.looseObject({
        wait: z.enum(["0", "1", "true", "false"]).optional(),
        action: z.literal("interrupt").optional(),
      }),
    },
    async (c, { params, query }) => {
      const { record } = await runOf(params.thread_id ?? "", params.run_id ?? "");
      await ctx.manager.cancel(record.id, query.wait === "1" || query.wait === "true");
      return c.body(null, 202);
    },
  );
  table.add(
    {
      method: "delete",
      path: "/threads/{thread_id}/runs/{run_id}",
      capability: "runs",
      summary: "Delete a finished run's record.",
      tag: "runs",
    },
    async (c, { params }) => {
      const { record } = await runOf(params.thread_id ?? "", params.run_id ?? "");
      if (record.status === "pending" || record.status === "running") {
        throw new KeelError(
          "THREAD_BUSY",
          `Run "${record.id}" is ${record.status}; cancel it first.`,
        );
      }
      await ctx.records.deleteRun(record.id);
      await ctx.saver.sql.run("DELETE FROM state_runs WHERE id = ?", [record.id]);
      return c.body(null, 204);
    },
  );
}

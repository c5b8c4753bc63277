import { z } from "zod";
import type { ServerContext } from "../context.js";
import type { Assistant } from "../langgraph/assistants.js";
import { topologyOf } from "../langgraph/topology.js";
import { iso } from "../langgraph/wire.js";
import type { RouteTable } from "../route.js";

const AssistantJson = z.object({
  assistant_id: z.string(),
  graph_id: z.string(),
  name: z.string(),
  config: z.record(z.string(), z.unknown()),
  context: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.unknown()),
  version: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
  description: z.string().nullable(),
});

function assistantJson(a: Assistant): z.output<typeof AssistantJson> {
  return {
    assistant_id: a.assistantId,
    graph_id: a.graphId,
    name: a.graphId,
    config: {},
    context: {},
    metadata: { created_by: "system", keel_kind: a.kind, source: a.source },
    version: 1,
    created_at: iso(a.createdAt),
    updated_at: iso(a.createdAt),
    description: null,
  };
}

const Search = z.looseObject({
  graph_id: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
});

/**
 * Assistants: one per graph of the server's config (read-only here: they are what the config
 * says; the SDK's create/update/delete of assistants are not served).
 */
export function assistantRoutes(table: RouteTable, ctx: ServerContext): void {
  table.add(
    {
      method: "post",
      path: "/assistants/search",
      capability: "read",
      summary: "List assistants (one per configured graph).",
      tag: "assistants",
      body: Search,
      response: z.array(AssistantJson),
    },
    (c, { body }) => {
      const all = [...ctx.assistants.values()].filter(
        (a) => body.graph_id === undefined || a.graphId === body.graph_id,
      );
      return c.json(all.slice(body.offset, body.offset + body.limit).map(assistantJson));
    },
  );
  table.add(
    {
      method: "post",
      path: "/assistants/count",
      capability: "read",
      summary: "Count assistants.",
      tag: "assistants",
      body: Search,
      response: z.number(),
    },
    (c, { body }) =>
      c.json(
        [...ctx.assistants.values()].filter(
          (a) => body.graph_id === undefined || a.graphId === body.graph_id,
        ).length,
      ),
  );
  table.add(
    {
      method: "get",
      path: "/assistants/{assistant_id}",
      capability: "read",
      summary: "One assistant.",
      tag: "assistants",
      response: AssistantJson,
    },
    (c, { params }) => c.json(assistantJson(ctx.manager.assistant(params.assistant_id ?? ""))),
  );
  table.add(
    {
      method: "get",
      path: "/assistants/{assistant_id}/graph",
      capability: "read",
      summary: "The assistant's graph: nodes and edges (conditional ones marked).",
      tag: "assistants",
      response: z.object({
        nodes: z.array(z.object({ id: z.string(), type: z.string(), data: z.string() })),
        edges: z.array(
          z.object({ source: z.string(), target: z.string(), conditional: z.boolean() }),
        ),
      }),
    },
    (c, { params }) => c.json(topologyOf(ctx.manager.assistant(params.assistant_id ?? "").graph)),
  );
  table.add(
    {
      method: "get",
      path: "/assistants/{assistant_id}/schemas",
      capability: "read",
      summary: "The assistant's state keys (Keel graphs carry no JSON Schema of their state).",
      tag: "assistants",
      response: z.object({ graph_id: z.string(), state_schema: z.record(z.string(), z.unknown()) }),
    },
    (c, { params }) => {
      const a = ctx.manager.assistant(params.assistant_id ?? "");
      const properties = Object.fromEntries(a.graph.stateKeys.map((key) => [key, {}]));
      return c.json({
        graph_id: a.graphId,
        state_schema: { type: "object", properties },
        input_schema: { type: "object", properties },
        output_schema: { type: "object", properties },
        config_schema: { type: "object" },
        context_schema: { type: "object" },
      });
    },
  );
}

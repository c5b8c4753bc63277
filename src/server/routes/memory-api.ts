import { z } from "zod";
import { DecisionMemory, SearchMode } from "../../memory/index.js";
import type { ServerContext } from "../context.js";
import type { RouteTable } from "../route.js";

const Json = z.record(z.string(), z.unknown());
const Strings = z.array(z.string().max(2000)).max(200);

/**
 * The decision memory (seed 001): search, list and show with `read`; record, supersede, and
 * propose, accept or reject a proposal with `memory`. Each is the `DecisionMemory` call `keel memory search/record/supersede` makes, so
 * the service validates the content (422 MEMORY_INVALID with every problem), refuses a taken
 * target (409 MEMORY_CONFLICT) and audits every change. Writes through the API have source
 * `user`: a token is held by a person or an application, not an agent.
 */
export function memoryRoutes(table: RouteTable, ctx: ServerContext): void {
  const memory = new DecisionMemory(ctx.store, { audit: ctx.audit });

  table.add(
    {
      method: "get",
      path: "/api/memory/search",
      capability: "read",
      summary:
        "Search decisions (full text, fused with vectors when configured); superseded hits resolve to their successor unless mode=audit.",
      tag: "memory",
      query: z.looseObject({
        query: z.string().trim().min(1).max(2000),
        limit: z.coerce.number().int().min(1).max(50).default(10),
        offset: z.coerce.number().int().min(0).default(0),
        namespace: z.string().max(200).optional(),
        mode: SearchMode.default("balanced"),
      }),
      response: z.object({ ok: z.literal(true), hits: z.array(Json) }),
    },
    async (c, { query }) => {
      const hits = await memory.search({
        query: query.query,
        limit: query.limit,
        offset: query.offset,
        mode: query.mode,
        ...(query.namespace ? { namespace: query.namespace } : {}),
      });
      return c.json({ ok: true as const, hits: hits as unknown as Record<string, unknown>[] });
    },
  );

  table.add(
    {
      method: "get",
      path: "/api/memory",
      capability: "read",
      summary: "Records of a namespace, newest first, filtered by kind, status or target.",
      tag: "memory",
      query: z.looseObject({
        namespace: z.string().max(200).optional(),
        kind: z.string().max(40).optional(),
        status: z.string().max(40).optional(),
        target: z.string().max(2000).optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
      }),
      response: z.object({ ok: z.literal(true), records: z.array(Json) }),
    },
    async (c, { query }) => {
      const records = await memory.list({
        ...(query.namespace ? { namespace: query.namespace } : {}),
        ...(query.kind ? { kind: query.kind } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(query.target ? { target: query.target } : {}),
        limit: query.limit,
      });
      return c.json({
        ok: true as const,
        records: records as unknown as Record<string, unknown>[],
      });
    },
  );

  table.add(
    {
      method: "get",
      path: "/api/memory/{record_id}",
      capability: "read",
      summary: "One record with its supersede links (404 MEMORY_NOT_FOUND).",
      tag: "memory",
      response: Json,
    },
    async (c, { params }) => c.json({ ok: true, record: await memory.get(params.record_id ?? "") }),
  );

  table.add(
    {
      method: "post",
      path: "/api/memory",
      capability: "memory",
      summary:
        "Record a decision, constraint, assumption or intervention (409 MEMORY_CONFLICT when an active decision holds the target).",
      tag: "memory",
      body: z.object({
        title: z.string().max(2000),
        target: z.string().max(2000),
        rationale: z.string().max(20_000),
        kind: z.enum(["decision", "constraint", "assumption", "intervention"]).optional(),
        consequences: Strings.optional(),
        keywords: Strings.optional(),
        namespace: z.string().max(200).optional(),
      }),
      response: Json,
    },
    async (c, { body }) => {
      const record = await memory.record({
        title: body.title,
        target: body.target,
        rationale: body.rationale,
        consequences: body.consequences ?? [],
        ...(body.kind ? { kind: body.kind } : {}),
        ...(body.keywords ? { keywords: body.keywords } : {}),
        ...(body.namespace ? { namespace: body.namespace } : {}),
        source: "user",
      });
      ctx.bus.publish("memory.recorded", { record_id: record.id, target: record.target });
      return c.json({ ok: true, record }, 201);
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/memory/supersede",
      capability: "memory",
      summary:
        "Replace active decisions with a new one; the old ids must cover every active decision on the target (409 MEMORY_CONFLICT).",
      tag: "memory",
      body: z.object({
        title: z.string().max(2000),
        target: z.string().max(2000),
        rationale: z.string().max(20_000),
        old_decision_ids: z.array(z.string().max(200)).min(1).max(200),
        consequences: Strings.optional(),
        keywords: Strings.optional(),
        namespace: z.string().max(200).optional(),
      }),
      response: Json,
    },
    async (c, { body }) => {
      const record = await memory.supersede({
        title: body.title,
        target: body.target,
        rationale: body.rationale,
        old_decision_ids: body.old_decision_ids,
        ...(body.consequences ? { consequences: body.consequences } : {}),
        ...(body.keywords ? { keywords: body.keywords } : {}),
        ...(body.namespace ? { namespace: body.namespace } : {}),
        source: "user",
      });
      ctx.bus.publish("memory.superseded", {
        record_id: record.id,
        superseded: body.old_decision_ids,
      });
      return c.json({ ok: true, record }, 201);
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/memory/proposals",
      capability: "memory",
      summary:
        "Propose a decision (a draft, never in conflict); accept makes it an active decision, reject keeps the reason among its objections.",
      tag: "memory",
      body: z.object({
        title: z.string().max(2000),
        target: z.string().max(2000),
        rationale: z.string().max(20_000),
        confidence: z.number().min(0).max(1),
        keywords: Strings.optional(),
        strengths: Strings.optional(),
        objections: Strings.optional(),
        suggested_consequences: Strings.optional(),
        suggested_supersedes: Strings.optional(),
        namespace: z.string().max(200).optional(),
      }),
      response: Json,
    },
    async (c, { body }) => {
      const record = await memory.propose({
        title: body.title,
        target: body.target,
        rationale: body.rationale,
        confidence: body.confidence,
        ...(body.keywords ? { keywords: body.keywords } : {}),
        ...(body.strengths ? { strengths: body.strengths } : {}),
        ...(body.objections ? { objections: body.objections } : {}),
        ...(body.suggested_consequences
          ? { suggested_consequences: body.suggested_consequences }
          : {}),
        ...(body.suggested_supersedes ? { suggested_supersedes: body.suggested_supersedes } : {}),
        ...(body.namespace ? { namespace: body.namespace } : {}),
        source: "user",
      });
      ctx.bus.publish("memory.proposed", { record_id: record.id, target: record.target });
      return c.json({ ok: true, record }, 201);
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/memory/{record_id}/accept",
      capability: "memory",
      summary:
        "Accept a draft proposal: answers the active decision it became (superseding the decisions it suggested, when they are all the target's); 409 MEMORY_INVARIANT for a record that is not a draft proposal, MEMORY_CONFLICT for a target already decided.",
      tag: "memory",
      response: Json,
    },
    async (c, { params }) => {
      const id = params.record_id ?? "";
      const decision = await memory.accept(id, "user");
      ctx.bus.publish("memory.accepted", { record_id: id, decision_id: decision.id });
      return c.json({ ok: true, record: decision }, 201);
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/memory/{record_id}/reject",
      capability: "memory",
      summary:
        "Reject a draft proposal (the reason is kept among its objections); 409 MEMORY_INVARIANT for a record that is not a draft proposal.",
      tag: "memory",
      body: z.object({ reason: z.string().max(2000).optional() }),
      response: Json,
    },
    async (c, { params, body }) => {
      const id = params.record_id ?? "";
      const record = await memory.reject(id, body.reason ?? null, "user");
      ctx.bus.publish("memory.rejected", { record_id: id });
      return c.json({ ok: true, record });
    },
  );
}

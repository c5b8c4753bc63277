import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { isKeelError, KeelError } from "../../core/index.js";
import {
  ApprovalService,
  ApprovalStatus,
  AuditOutcome,
  assertSettleable,
  checkOperatorOutput,
  continueGovernedRun,
  listToolCalls,
  PipelineStage,
  type ReplayReport,
  readAuditTrace,
  replayGovernedRun,
  searchAudit,
  ToolCallStatus,
  ToolLedger,
  ToolRegistry,
  toolCallDetail,
  verifyAuditLog,
} from "../../runtime/index.js";
import { mayApproveTool } from "../auth/capabilities.js";
import type { ServerContext } from "../context.js";
import type { RouteTable } from "../route.js";

const Json = z.record(z.string(), z.unknown());
const Limit = z.coerce.number().int().min(1).max(1000).default(100);

/**
 * Keel's own API under `/api`: runs (list, show, replay), approvals (list, show, approve, deny),
 * the tool-call ledger (list, show, resolve), audit (trace timeline, search, verify) and the event
 * channel (SSE). Each handler is a call to the runtime service the CLI verb of the same name
 * calls; decisions are made as the caller's token (its name is `by`, its capabilities are the
 * capabilities asserted to the service).
 */
export function keelRoutes(table: RouteTable, ctx: ServerContext): void {
  const approvals = () => new ApprovalService({ store: ctx.store, audit: ctx.audit });
  const ledger = () =>
    new ToolLedger({ store: ctx.store, audit: ctx.audit, tools: new ToolRegistry() });

  table.add(
    {
      method: "get",
      path: "/api/runs",
      capability: "read",
      summary: "Runs of every kind (API, governed, IR), newest first.",
      tag: "keel",
      query: z.looseObject({
        status: z
          .enum(["pending", "running", "paused", "succeeded", "failed", "canceled"])
          .optional(),
        thread_id: z.string().optional(),
        limit: Limit,
      }),
      response: z.object({ ok: z.literal(true), runs: z.array(Json) }),
    },
    async (c, { query }) => {
      const runs = await ctx.runs.list({
        ...(query.status ? { status: query.status } : {}),
        ...(query.thread_id ? { threadId: query.thread_id } : {}),
        limit: query.limit,
      });
      return c.json({ ok: true as const, runs });
    },
  );
  table.add(
    {
      method: "get",
      path: "/api/runs/{run_id}",
      capability: "read",
      summary: "One run record, with the API's view of it when it has one.",
      tag: "keel",
      response: Json,
    },
    async (c, { params }) => {
      const run = await ctx.runs.get(params.run_id ?? "");
      const api = await ctx.records.findRun(run.id);
      return c.json({
        ok: true,
        run,
        assistantId: api?.assistantId ?? null,
        kwargs: api?.kwargs ?? null,
      });
    },
  );
  table.add(
    {
      method: "post",
      path: "/api/runs/{run_id}/replay",
      capability: "runs",
      summary: "Replay a governed run from its ledger (with changes: a counterfactual report).",
      tag: "keel",
      body: z.looseObject({
        input: z.unknown().optional(),
        autonomy: z.enum(["A0", "A1", "A2", "A3", "A4"]).optional(),
      }),
      response: Json,
    },
    async (c, { params, body }) => {
      const changes = {
        ...(body.input !== undefined ? { input: body.input } : {}),
        ...(body.autonomy ? { autonomy: body.autonomy } : {}),
      };
      let report: ReplayReport;
      try {
        report = await replayGovernedRun(
          ctx.store,
          params.run_id ?? "",
          Object.keys(changes).length ? changes : undefined,
        );
      } catch (error) {
        const failed = isKeelError(error)
          ? (error.details as { report?: ReplayReport }).report
          : undefined;
        if (!failed) throw error;
        report = failed;
      }
      return c.json({ ok: report.identical, report });
    },
  );

  table.add(
    {
      method: "get",
      path: "/api/approvals",
      capability: "read",
      summary: "Approvals, newest first.",
      tag: "keel",
      query: z.looseObject({ status: ApprovalStatus.optional(), limit: Limit }),
      response: z.object({ ok: z.literal(true), approvals: z.array(Json) }),
    },
    async (c, { query }) =>
      c.json({
        ok: true as const,
        approvals: await approvals().list({
          ...(query.status ? { status: query.status } : {}),
          limit: query.limit,
        }),
      }),
  );
  table.add(
    {
      method: "get",
      path: "/api/approvals/{approval_id}",
      capability: "read",
      summary: "One approval.",
      tag: "keel",
      response: Json,
    },
    async (c, { params }) =>
      c.json({ ok: true, approval: await approvals().get(params.approval_id ?? "") }),
  );
  for (const verdict of ["approve", "deny"] as const) {
    table.add(
      {
        method: "post",
        path: `/api/approvals/{approval_id}/${verdict}`,
        capability: "approve",
        summary: `${verdict === "approve" ? "Approve" : "Deny"} a pending approval as the caller; its run then continues unless resume is false.`,
        tag: "keel",
        body: z.looseObject({
          reason: z.string().max(2000).optional(),
          resume: z.boolean().optional(),
        }),
        response: Json,
      },
      async (c, { params, body, caller }) => {
        const service = approvals();
        const pending = await service.get(params.approval_id ?? "");
        const tool = typeof pending.what.tool === "string" ? pending.what.tool : null;
        if (!caller || !mayApproveTool(caller.capabilities, tool)) {
          throw new KeelError(
            "CAPABILITY_MISSING",
            `Deciding approvals of ${tool ?? "this action"} needs approve or approve:${tool ?? "<tool>"}.`,
            {
              details: { tool, held: caller?.capabilities ?? [] },
            },
          );
        }
        const decision = {
          by: caller.name,
          reason: body.reason ?? null,
          capabilities: assertedCapabilities(caller.capabilities, pending.required_capability),
        };
        const approval =
          verdict === "approve"
            ? await service.approve(pending.approval_id, decision)
            : await service.deny(pending.approval_id, decision);
        // The watcher publishes approval.<status> (once, whoever decided it).
        void ctx.watcher.poke();
        const runId = approval.refs.task_id;
        const continued =
          runId !== null && body.resume !== false
            ? await continueGovernedRun(ctx.store, runId)
            : null;
        // The watcher publishes the run's new status (run.finished, run.paused, …).
        if (continued?.continued) void ctx.watcher.poke();
        return c.json({
          ok: true,
          approval,
          run: continued
            ? continued.continued
              ? {
                  id: continued.result.run.id,
                  continued: true,
                  status: continued.result.run.status,
                }
              : {
                  id: continued.runId,
                  continued: false,
                  reason: continued.reason,
                  message: continued.message,
                }
            : null,
        });
      },
    );
  }

  table.add(
    {
      method: "get",
      path: "/api/ledger",
      capability: "read",
      summary: "Tool calls on the ledger, newest first (default: those in doubt, status unknown).",
      tag: "keel",
      query: z.looseObject({
        status: z.union([ToolCallStatus, z.literal("all")]).default("unknown"),
        trace_id: z.string().optional(),
        run_id: z.string().optional(),
        limit: Limit,
      }),
      response: z.object({ ok: z.literal(true), calls: z.array(Json) }),
    },
    async (c, { query }) =>
      c.json({
        ok: true as const,
        calls: await listToolCalls(ctx.store, {
          ...(query.status !== "all" ? { status: query.status } : {}),
          ...(query.trace_id ? { traceId: query.trace_id } : {}),
          ...(query.run_id ? { runId: query.run_id } : {}),
          limit: query.limit,
        }),
      }),
  );
  table.add(
    {
      method: "get",
      path: "/api/ledger/{tool_call_id}",
      capability: "read",
      summary: "One tool call: request, result, response.",
      tag: "keel",
      response: Json,
    },
    async (c, { params }) =>
      c.json({
        ok: true,
        ...(await toolCallDetail(ctx.store, ledger(), params.tool_call_id ?? "")),
      }),
  );
  table.add(
    {
      method: "post",
      path: "/api/ledger/{tool_call_id}/resolve",
      capability: "ledger",
      summary:
        "Settle a call in doubt (unknown) as succeeded (with its output) or failed; its run then continues unless resume is false.",
      tag: "keel",
      body: z.object({
        outcome: z.enum(["succeeded", "failed"]),
        output: z.unknown().optional(),
        reason: z.string().trim().min(1).max(2000),
        resume: z.boolean().optional(),
      }),
      response: Json,
    },
    async (c, { params, body, caller }) => {
      const l = ledger();
      const id = params.tool_call_id ?? "";
      const { toolCall } = await l.get(id);
      assertSettleable(toolCall, body.outcome);
      if (body.outcome === "succeeded")
        await checkOperatorOutput(ctx.store, toolCall, body.output ?? null);
      const settled = await l.resolveUnknown(id, {
        outcome: body.outcome,
        output: body.outcome === "succeeded" ? (body.output ?? null) : null,
        by: caller?.name ?? "api",
        reason: body.reason,
      });
      ctx.bus.publish("tool_call.resolved", { tool_call_id: id, outcome: body.outcome });
      const runId = settled.toolCall.task_id;
      const continued =
        runId !== null && body.resume !== false
          ? await continueGovernedRun(ctx.store, runId)
          : null;
      return c.json({
        ok: true,
        ...settled,
        run: continued ? { continued: continued.continued } : null,
      });
    },
  );

  table.add(
    {
      method: "get",
      path: "/api/audit",
      capability: "read",
      summary: "Search the audit log, newest first.",
      tag: "keel",
      query: z.looseObject({
        type: z.string().optional(),
        stage: PipelineStage.optional(),
        outcome: AuditOutcome.optional(),
        text: z.string().optional(),
        limit: Limit,
      }),
      response: z.object({ ok: z.literal(true), events: z.array(Json) }),
    },
    async (c, { query }) =>
      c.json({
        ok: true as const,
        events: await searchAudit(ctx.store, {
          ...(query.type ? { type: query.type } : {}),
          ...(query.stage ? { stage: query.stage } : {}),
          ...(query.outcome ? { outcome: query.outcome } : {}),
          ...(query.text ? { text: query.text } : {}),
          limit: query.limit,
        }),
      }),
  );
  table.add(
    {
      method: "get",
      path: "/api/audit/{trace_id}",
      capability: "read",
      summary: "A trace's timeline, oldest first.",
      tag: "keel",
      response: z.object({ ok: z.literal(true), events: z.array(Json) }),
    },
    async (c, { params }) =>
      c.json({ ok: true as const, events: await readAuditTrace(ctx.store, params.trace_id ?? "") }),
  );
  table.add(
    {
      method: "post",
      path: "/api/audit/verify",
      capability: "read",
      summary: "Recompute the audit hash chain; findings are themselves audited.",
      tag: "keel",
      response: Json,
    },
    async (c) => c.json(await verifyAuditLog(ctx.store, { record: ctx.audit })),
  );

  table.add(
    {
      method: "get",
      path: "/api/events",
      capability: "read",
      summary:
        "The server's event channel (SSE): run steps and ends, approvals, ledger settlements.",
      tag: "keel",
      sse: true,
    },
    (c) =>
      streamSSE(c, async (stream) => {
        const queue: string[] = [];
        let wake: (() => void) | undefined;
        const stop = ctx.bus.subscribe((event) => {
          // A client that does not read is dropped rather than buffered without bound.
          if (queue.length > 1000) {
            stream.abort();
            return;
          }
          queue.push(JSON.stringify(event));
          wake?.();
        });
        let gone = false;
        stream.onAbort(() => {
          gone = true;
          stop();
          wake?.();
        });
        await stream.writeSSE({ event: "ready", data: "{}" });
        const heartbeat = setInterval(() => {
          queue.push("");
          wake?.();
        }, 15_000);
        try {
          while (!gone) {
            const next = queue.shift();
            if (next === undefined) {
              await new Promise<void>((resolve) => {
                wake = resolve;
              });
              wake = undefined;
              continue;
            }
            if (next === "") await stream.write(": heartbeat\n\n");
            else await stream.writeSSE({ event: "event", data: next });
          }
        } finally {
          clearInterval(heartbeat);
          stop();
        }
      }),
  );
}

/**
 * The capabilities a decision asserts to the approval service: the token's own, and for an
 * `admin` token also the approval's `required_capability` (admin may decide anything). Any other
 * token must itself carry what the approval requires (e.g. `approve:payments.refund`).
 */
function assertedCapabilities(held: readonly string[], required: string | null): string[] {
  return required !== null && held.includes("admin") ? [...held, required] : [...held];
}

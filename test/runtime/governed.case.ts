import { afterAll, describe, expect, it } from "vitest";
import { isKeelError } from "../../src/core/index.js";
import { Annotation, END, isGraphInterrupt, START, StateGraph } from "../../src/graph/index.js";
import { runtimeDb } from "../../src/runtime/db/tables.js";
import {
  continueGovernedRun,
  GovernedRuntime,
  governedNode,
  IngestService,
  loadGovernedApp,
  type RetryPolicy,
  Router,
  readAuditTrace,
  retryDelayMs,
  searchAudit,
  seededRandom,
  startExpirySweep,
  ToolRegistry,
  validateContract,
  verifyAuditLog,
} from "../../src/runtime/index.js";
import { ManualClock } from "./support/clock.js";
import {
  governedTools,
  type Ledgered,
  oneCallGraph,
  priceGraph,
  refundGraph,
  replayPolicyTools,
} from "./support/governed.js";
import type { RuntimeHarness } from "./support/harness.js";

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}
const codeOf = (error: unknown) => (isKeelError(error) ? error.code : undefined);
const APPROVER = {
  by: "ana",
  reason: "checked the order",
  capabilities: ["approve:payments.refund"],
};

export function runGovernedCases(harness: RuntimeHarness): void {
  describe(`governed runs: ${harness.dialect}`, () => {
    afterAll(() => harness.cleanup());

    async function setup(label: string, clock = new ManualClock()) {
      const store = await harness.open(label);
      const world: Ledgered = { refunds: [], emails: [], failRefunds: 0, crashAfterRefund: false };
      const runtime = new GovernedRuntime({ store, tools: governedTools(world), clock });
      return { store, world, runtime, clock };
    }
    /** Ingests `structured` and routes it with one rule at `autonomy`. */
    async function routed(
      runtime: GovernedRuntime,
      rule: Record<string, unknown>,
      structured: Record<string, unknown>,
      autonomy: "A0" | "A1" | "A2" | "A3" | "A4",
      config: Record<string, unknown> = {},
    ) {
      const ingested = await new IngestService({
        store: runtime.store,
        audit: runtime.audit,
      }).ingest({ kind: "webhook", connectorId: "ci", body: structured });
      if (ingested.status !== "accepted") throw new Error(`not accepted: ${ingested.status}`);
      const router = new Router({
        rules: [{ id: "rule", when: "(channel webhook)", ...rule }],
        ...config,
      });
      const route = await router.route(ingested.event, { autonomy, audit: runtime.audit });
      return { event: ingested.event, route };
    }

    const start = (
      runtime: GovernedRuntime,
      graph: ReturnType<typeof refundGraph>,
      order: string,
      autonomy: "A0" | "A1" | "A2" | "A3" | "A4",
      risk: "low" | "medium" | "high" | "critical",
    ) =>
      runtime.start({
        graph,
        input: { order },
        autonomy,
        risk,
        capabilities: ["payments:refund"],
      });

    it("a confirm gate pauses the run on an Approval; approving resumes it and the effect happens once", async () => {
      const { store, world, runtime } = await setup("confirm");
      const graph = refundGraph(runtime);
      const started = await start(runtime, graph, "big", "A2", "high");
      expect(started.run.status).toBe("paused");
      expect(world.refunds).toEqual([]);
      const [waiting] = started.waitingFor;
      expect(waiting?.kind).toBe("approval");
      const approval = await runtime.approvals.get(waiting?.approval_id ?? "");
      expect(approval.status).toBe("pending");
      expect(approval.what).toMatchObject({
        tool: "payments.refund",
        input: { order: "big", amount: 900 },
      });
      expect(approval.required_capability).toBe("approve:payments.refund");
      expect((await runtime.task(started.run.id)).status).toBe("paused");
      // Resuming before anyone decided is refused.
      expect(codeOf(await caught(runtime.resume(started.run.id, graph)))).toBe("APPROVAL_PENDING");
      // Approving without the capability is refused and audited; the approval stays pending.
      expect(
        codeOf(
          await caught(
            runtime.approvals.approve(approval.approval_id, { by: "bob", capabilities: [] }),
          ),
        ),
      ).toBe("CAPABILITY_MISSING");
      await runtime.approvals.approve(approval.approval_id, APPROVER);
      // The notification is gated too: the run's high risk is the floor of every call.
      const notifying = await runtime.resume(started.run.id, graph);
      expect(notifying.run.status).toBe("paused");
      expect(world.refunds).toEqual(["big:900"]);
      const notice = await runtime.approvals.get(notifying.waitingFor[0]?.approval_id ?? "");
      expect(notice.what).toMatchObject({ tool: "email.send" });
      expect(notice.risk_level).toBe("high");
      await runtime.approvals.approve(notice.approval_id, {
        ...APPROVER,
        capabilities: ["approve:email.send"],
      });
      const done = await runtime.resume(started.run.id, graph);
      expect(done.run.status).toBe("succeeded");
      expect(world.refunds).toEqual(["big:900"]);
      expect(world.emails).toEqual(["big@example.com"]);

      const task = await runtime.task(started.run.id);
      expect(validateContract("Task", task).ok).toBe(true);
      expect(task.autonomy_level_at_start).toBe("A2");
      // Started without an event: no trigger to name.
      expect(task.trigger_event_id).toBeNull();
      const steps = await runtime.stepsOf(started.run.id);
      expect(steps.map((s) => [s.name, s.status])).toEqual([
        ["lookup", "succeeded"],
        ["refund", "succeeded"],
        ["notify", "succeeded"],
      ]);
      for (const step of steps) expect(validateContract("Step", step).ok).toBe(true);
      expect(steps[1]?.idempotency_key).toBe(`${started.run.id}:refund#1`);

      const trace = await readAuditTrace(store, started.task.trace_id);
      const types = trace.map((e) => e.type);
      for (const expected of [
        "task.created",
        "step.started",
        "gate.approval_requested",
        "step.paused",
        "task.paused",
        "gate.decision_refused",
        "gate.approved",
        "task.resumed",
        "step.resumed",
        "tool_call.attempted",
        "tool_call.succeeded",
        "task.succeeded",
      ]) {
        expect(types, expected).toContain(expected);
      }
      // Each call ran once: the lookup finished before the pause and was not run again.
      expect(types.filter((t) => t === "tool_call.attempted").length).toBe(3);
      expect((await verifyAuditLog(store)).ok).toBe(true);
      // Every effectful call carries an idempotency key.
      const calls = await runtimeDb(store).selectFrom("state_tool_calls").selectAll().execute();
      expect(calls.length).toBe(3);
      for (const call of calls)
        expect(call.idempotency_key).toMatch(new RegExp(`^${started.run.id}:`));
    });

    it("a denied approval fails the step and the run; the effect never happens", async () => {
      const { world, runtime } = await setup("deny");
      const graph = refundGraph(runtime);
      const started = await start(runtime, graph, "big", "A1", "high");
      const id = started.waitingFor[0]?.approval_id ?? "";
      await runtime.approvals.deny(id, { ...APPROVER, reason: "fraud suspected" });
      expect(codeOf(await caught(runtime.resume(started.run.id, graph)))).toBe("APPROVAL_DENIED");
      expect(world.refunds).toEqual([]);
      expect((await runtime.task(started.run.id)).status).toBe("failed");
      const refund = (await runtime.stepsOf(started.run.id)).find((s) => s.name === "refund");
      expect(refund?.status).toBe("failed");
      expect(refund?.error?.code).toBe("APPROVAL_DENIED");
      expect(codeOf(await caught(runtime.approvals.approve(id, APPROVER)))).toBe(
        "APPROVAL_ALREADY_DECIDED",
      );
    });

    it("an approval nobody decides expires and fails its step with a clear error", async () => {
      const clock = new ManualClock();
      const { world, runtime } = await setup("expire", clock);
      const graph = refundGraph(runtime);
      const started = await start(runtime, graph, "big", "A2", "high");
      clock.advance(3600 * 1000 + 1);
      const expired = await runtime.expireDue(() => graph);
      expect(expired.map((a) => a.status)).toEqual(["expired"]);
      expect(world.refunds).toEqual([]);
      expect((await runtime.task(started.run.id)).status).toBe("failed");
      const refund = (await runtime.stepsOf(started.run.id)).find((s) => s.name === "refund");
      expect(refund?.status).toBe("failed");
      expect(refund?.error?.code).toBe("APPROVAL_EXPIRED");
      expect(refund?.error?.message).toMatch(/expired/);
      const id = expired[0]?.approval_id ?? "";
      expect(codeOf(await caught(runtime.approvals.approve(id, APPROVER)))).toBe(
        "APPROVAL_EXPIRED",
      );
    });

    it("an expiry sweep on a timer fails the waiting step without anyone reading the approval", async () => {
      const clock = new ManualClock();
      const { world, runtime } = await setup("expire_sweep", clock);
      const graph = refundGraph(runtime);
      const started = await start(runtime, graph, "big", "A2", "high");
      const seen: string[] = [];
      const sweep = startExpirySweep(runtime, {
        graphFor: () => graph,
        everyMs: 5,
        onExpired: (approvals) => seen.push(...approvals.map((a) => a.status)),
      });
      try {
        await new Promise((resolve) => setTimeout(resolve, 30));
        expect(seen).toEqual([]);
        clock.advance(3600 * 1000 + 1);
        for (let i = 0; i < 200 && seen.length === 0; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      } finally {
        await sweep.stop();
      }
      expect(seen).toEqual(["expired"]);
      expect(world.refunds).toEqual([]);
      expect((await runtime.task(started.run.id)).status).toBe("failed");
      expect(await sweep.sweepNow()).toEqual([]);
    });

    it("preview runs the tool's dry run, records it, then the call; allow just runs; block refuses", async () => {
      const { store, world, runtime } = await setup("gates");
      const graph = refundGraph(runtime);
      const previewed = await start(runtime, graph, "small", "A2", "medium");
      expect(previewed.run.status).toBe("succeeded");
      expect(world.refunds).toEqual(["small:25"]);
      const trace = await readAuditTrace(store, previewed.task.trace_id);
      expect(trace.map((e) => e.type)).toContain("gate.preview");

      const allowed = await start(runtime, graph, "small", "A4", "high");
      expect(allowed.run.status).toBe("succeeded");
      expect(world.refunds.length).toBe(2);

      expect(codeOf(await caught(start(runtime, graph, "small", "A2", "critical")))).toBe(
        "GATE_BLOCKED",
      );
      expect(world.refunds.length).toBe(2);
    });

    it("retries a failed step per its RetryPolicy, recording the wake time, with the same idempotency key", async () => {
      const { store, world, runtime } = await setup("retry");
      const graph = refundGraph(runtime, { retry: true });
      world.failRefunds = 2;
      const done = await start(runtime, graph, "small", "A4", "low");
      expect(done.run.status).toBe("succeeded");
      expect(world.refunds).toEqual(["small:25"]);
      const refund = (await runtime.stepsOf(done.run.id)).find((s) => s.name === "refund");
      expect(refund?.attempt).toBe(2);
      const types = (await readAuditTrace(store, done.task.trace_id)).map((e) => e.type);
      expect(types.filter((t) => t === "step.retry_scheduled").length).toBe(2);
      expect(types.filter((t) => t === "tool_call.failed").length).toBe(2);
    });

    it("exponential retries back off with jitter: each wake time recorded, the Task's next_wake_time set while it waits", async () => {
      const clock = new ManualClock();
      const store = await harness.open("retry_exponential");
      const world: Ledgered = { refunds: [], emails: [], failRefunds: 2, crashAfterRefund: false };
      const runtime = new GovernedRuntime({
        store,
        tools: governedTools(world),
        clock,
        random: seededRandom(11),
      });
      const policy: RetryPolicy = {
        strategy: "exponential",
        base_delay_ms: 300,
        max_delay_ms: 10_000,
        jitter: true,
      };
      // The delays the runtime draws: the same seed, the same draws, in the same order.
      const draws = seededRandom(11);
      const delays = [retryDelayMs(policy, 0, draws), retryDelayMs(policy, 1, draws)] as number[];
      // Equal jitter: in the upper half of base × 2^attempt.
      expect(delays[0]).toBeGreaterThanOrEqual(150);
      expect(delays[0]).toBeLessThan(300);
      expect(delays[1]).toBeGreaterThanOrEqual(300);
      expect(delays[1]).toBeLessThan(600);
      const wakeTimes = delays.map((d) => new Date(clock.now() + d).toISOString());
      const running = start(runtime, refundGraph(runtime, { retry: policy }), "small", "A4", "low");
      let finished = false;
      void running.finally(() => {
        finished = true;
      });
      // While the run sleeps between attempts, its Task says when it wakes.
      const seen = new Set<string>();
      while (!finished) {
        const [run] = await runtime.runs.list({ limit: 1 });
        const wake = run ? (await runtime.task(run.id)).next_wake_time : null;
        if (wake !== null) seen.add(wake);
        await new Promise((r) => setTimeout(r, 10));
      }
      const done = await running;
      expect(done.run.status).toBe("succeeded");
      expect(done.task.next_wake_time).toBeNull();
      expect([...seen]).toEqual(wakeTimes);
      expect(world.refunds).toEqual(["small:25"]);
      const scheduled = (await readAuditTrace(store, done.task.trace_id)).filter(
        (e) => e.type === "step.retry_scheduled",
      );
      expect(scheduled.map((e) => e.summary.split(" at ").pop())).toEqual(wakeTimes);
      const refund = (await runtime.stepsOf(done.run.id)).find((s) => s.name === "refund");
      expect(refund).toMatchObject({ attempt: 2, status: "succeeded", retry_policy: policy });
    });

    it("router.route audits its decision, a blocked route and each refused loosening, in one transaction", async () => {
      const { store, runtime } = await setup("route_audit");
      const routeEvents = async (traceId: string) =>
        (await readAuditTrace(store, traceId))
          .filter((e) => e.stage === "route" || e.stage === "rule")
          .map((e) => [e.type, e.outcome, e.summary]);
      // High risk at A2 is confirm; a rule asking for allow is ignored, and that is audited.
      const loose = await routed(runtime, { risk_level: "high", gate: "allow" }, { n: 1 }, "A2");
      expect(loose.route.gate.decision).toBe("confirm");
      expect(loose.route.gate.refusedLoosenings.map((t) => t.ruleId)).toEqual(["rule"]);
      expect(await routeEvents(loose.event.correlation.trace_id)).toEqual([
        ["route.decided", "success", expect.stringContaining("gate confirm")],
        [
          "rule.loosening_refused",
          "suppressed",
          'rule rule asked for "allow", looser than the policy\'s "confirm"; ignored',
        ],
      ]);
      const blocked = await routed(runtime, { risk_level: "critical" }, { n: 2 }, "A2");
      expect(blocked.route.gate.decision).toBe("block");
      expect(await routeEvents(blocked.event.correlation.trace_id)).toEqual([
        ["route.blocked", "failure", expect.stringContaining("gate block")],
      ]);
      // A refusal that cannot be audited fails routing, and the decision is not recorded alone.
      await harness.raw(
        store,
        harness.dialect === "sqlite"
          ? "CREATE TRIGGER tr_test_no_refusal BEFORE INSERT ON state_audit_events WHEN NEW.type = 'rule.loosening_refused' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;"
          : `CREATE FUNCTION fn_test_no_refusal() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.type = 'rule.loosening_refused' THEN RAISE EXCEPTION 'disk on fire'; END IF; RETURN NEW; END; $$;
             CREATE TRIGGER tr_test_no_refusal BEFORE INSERT ON state_audit_events FOR EACH ROW EXECUTE FUNCTION fn_test_no_refusal();`,
      );
      const decidedBefore = (await searchAudit(store, { type: "route.decided" })).length;
      const failed = await caught(
        routed(runtime, { risk_level: "high", gate: "allow" }, { n: 3 }, "A2"),
      );
      expect(codeOf(failed)).toBe("AUDIT_WRITE_FAILED");
      expect((await searchAudit(store, { type: "route.decided" })).length).toBe(decidedBefore);
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });

    it("a node visited twice makes new calls, not replays of its first visit", async () => {
      const { world, runtime } = await setup("loop");
      const graph = refundGraph(runtime, { loops: 2 });
      const done = await start(runtime, graph, "small", "A4", "low");
      expect(done.run.status).toBe("succeeded");
      expect(world.refunds).toEqual(["small:25", "small:25"]);
      const visits = (await runtime.stepsOf(done.run.id))
        .filter((s) => s.name === "refund")
        .map((s) => s.idempotency_key);
      expect(visits).toEqual([`${done.run.id}:refund#1`, `${done.run.id}:refund#2`]);
    });

    it("an effect in doubt pauses the run for an operator; once settled, the run finishes without redoing it", async () => {
      const { world, runtime } = await setup("unknown");
      const graph = refundGraph(runtime);
      world.crashAfterRefund = true;
      const started = await start(runtime, graph, "small", "A4", "low");
      expect(started.run.status).toBe("paused");
      expect(started.waitingFor[0]?.kind).toBe("operator");
      const toolCallId = started.waitingFor[0]?.tool_call_id ?? "";
      expect((await runtime.ledger.get(toolCallId)).toolCall.status).toBe("unknown");
      // Still unknown: resuming pauses again, the effect is not repeated.
      const again = await runtime.resume(started.run.id, graph);
      expect(again.run.status).toBe("paused");
      expect(world.refunds).toEqual(["small:25"]);
      await runtime.ledger.resolveUnknown(toolCallId, {
        outcome: "succeeded",
        output: { receipt: "r-manual" },
        by: "ops",
        reason: "the provider shows the refund",
      });
      const done = await runtime.resume(started.run.id, graph);
      expect(done.run.status).toBe("succeeded");
      expect(world.refunds).toEqual(["small:25"]);
      expect((done.result as { receipt: string }).receipt).toBe("r-manual");
    });

    it("calls of one node in doubt at once pause the run once, for an operator", async () => {
      const store = await harness.open("unknown_at_once");
      const tools = new ToolRegistry();
      tools.register(
        {
          name: "charge",
          namespace: "pay",
          version: "1.0.0",
          description: "a charge whose answer is lost",
          input_schema: { type: "object" },
          output_schema: { type: "object" },
          side_effects: "write",
        },
        () => {
          throw new Error("connection reset after the request was sent");
        },
      );
      const runtime = new GovernedRuntime({ store, tools, clock: new ManualClock() });
      const graph = new StateGraph(Annotation.Root({ done: Annotation<boolean>() }))
        .addNode(
          "charge",
          governedNode(async (_state, ctx) => {
            const settled = await Promise.allSettled([
              ctx.call("pay.charge", { n: 1 }),
              ctx.call("pay.charge", { n: 2 }),
            ]);
            const errors = settled.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
            // A failure other than the pause itself is what the node reports.
            throw errors.find((e) => !isGraphInterrupt(e)) ?? errors[0];
          }),
        )
        .addEdge(START, "charge")
        .addEdge("charge", END)
        .compile({ checkpointer: runtime.checkpointer });
      const started = await runtime.start({ graph, input: {}, autonomy: "A4", risk: "low" });
      expect(started.run.status).toBe("paused");
      expect(started.waitingFor[0]?.kind).toBe("operator");
      const [step] = await runtime.stepsOf(started.run.id);
      expect(step?.status).toBe("paused");
    });

    it("a strict replay answers every call from the ledger; a counterfactual reports the first divergence", async () => {
      const { world, runtime } = await setup("replay");
      const graph = refundGraph(runtime);
      const original = await start(runtime, graph, "small", "A4", "low");
      expect(world.refunds.length).toBe(1);
      const report = await runtime.replay(original.run.id, graph);
      expect(report.identical).toBe(true);
      expect(report.diff.map((row) => row.at)).toEqual([
        "route",
        "lookup#1",
        "refund#1",
        "notify#1",
      ]);
      expect(world.refunds.length).toBe(1);
      expect(world.emails.length).toBe(1);

      const counter = await runtime.replay(original.run.id, graph, {
        counterfactual: { input: { order: "big" } },
      });
      expect(counter.identical).toBe(false);
      expect(counter.firstDivergence?.at).toBe("lookup#1");
      expect(counter.stoppedBy?.code).toBe("REPLAY_DIVERGED");
      expect(world.refunds.length).toBe(1);
      // A strict replay of a graph that makes another call fails loudly.
      const other = refundGraph(runtime, { loops: 2 });
      expect(codeOf(await caught(runtime.replay(original.run.id, other)))).toBe(
        "REPLAY_MISSING_CALL",
      );
    });

    it("a rule demanding confirm reaches the tool call: at A4 the write pauses on an approval", async () => {
      const { store, world, runtime } = await setup("rule_confirm");
      const { event, route } = await routed(
        runtime,
        { gate: "confirm", required_scopes: ["ops:prod"], note: "production needs a person" },
        { env: "production", n: 1 },
        "A4",
      );
      expect(route.gate.decision).toBe("confirm");
      const graph = oneCallGraph(runtime, "email.send", () => ({ to: "ops", body: "deploy" }));
      const started = await runtime.start({
        graph,
        input: {},
        autonomy: "A4",
        capabilities: ["ops:prod"],
        event,
        route,
      });
      expect(started.run.status).toBe("paused");
      expect(started.task.trigger_event_id).toBe(event.event_id);
      expect(started.waitingFor.map((w) => w.kind)).toEqual(["approval"]);
      expect(world.emails).toEqual([]);
      const approval = await runtime.approvals.get(started.waitingFor[0]?.approval_id ?? "");
      expect(approval.why).toMatch(/rule rule \(production needs a person\)/);
      const types = (await readAuditTrace(store, event.correlation.trace_id)).map((e) => e.type);
      expect(types).toContain("gate.approval_requested");
      expect(types).not.toContain("tool_call.attempted");
    });

    it("an approval lasts as long as the routing configuration's approval_ttl_seconds says", async () => {
      const { runtime } = await setup("routing_ttl");
      const { event, route } = await routed(
        runtime,
        { gate: "confirm" },
        { env: "production", n: 3 },
        "A4",
        { approval_ttl_seconds: 120 },
      );
      const graph = oneCallGraph(runtime, "email.send", () => ({ to: "ops", body: "x" }));
      const started = await runtime.start({ graph, input: {}, autonomy: "A4", event, route });
      const approval = await runtime.approvals.get(started.waitingFor[0]?.approval_id ?? "");
      expect(Date.parse(approval.expires_at) - Date.parse(approval.created_at)).toBe(120_000);
    });

    it("a scope routing requires and the run lacks refuses the start, audited before it propagates", async () => {
      const { store, world, runtime } = await setup("rule_scope");
      const { event, route } = await routed(
        runtime,
        { required_scopes: ["ops:prod"] },
        { env: "production", n: 2 },
        "A4",
      );
      const graph = oneCallGraph(runtime, "email.send", () => ({ to: "ops", body: "deploy" }));
      const error = await caught(
        runtime.start({ graph, input: {}, autonomy: "A4", capabilities: [], event, route }),
      );
      expect(codeOf(error)).toBe("CAPABILITY_MISSING");
      expect(world.emails).toEqual([]);
      const trace = await readAuditTrace(store, event.correlation.trace_id);
      const violation = trace.find((e) => e.type === "task.scope_violation");
      expect(violation?.outcome).toBe("failure");
      expect(violation?.summary).toContain("ops:prod");
      expect(trace.map((e) => e.type)).not.toContain("task.created");
    });

    it("node code cannot lower a call's risk below the run's: a call asking for low risk is still gated", async () => {
      const { world, runtime } = await setup("risk_floor");
      const graph = oneCallGraph(runtime, "email.send", () => ({ to: "ops", body: "hi" }), {
        risk: "low",
      });
      const started = await runtime.start({ graph, input: {}, autonomy: "A2", risk: "high" });
      expect(started.run.status).toBe("paused");
      expect(world.emails).toEqual([]);
      const approval = await runtime.approvals.get(started.waitingFor[0]?.approval_id ?? "");
      expect(approval.risk_level).toBe("high");
      // A call may raise its risk above the run's: critical at A2 is blocked.
      const raised = oneCallGraph(runtime, "email.send", () => ({ to: "ops", body: "hi" }), {
        risk: "critical",
      });
      const blocked = await caught(
        runtime.start({ graph: raised, input: {}, autonomy: "A2", risk: "low" }),
      );
      expect(codeOf(blocked)).toBe("GATE_BLOCKED");
      expect(world.emails).toEqual([]);
    });

    it("admission runs before the gate: a call that would be refused asks nobody for approval", async () => {
      const { store, world, runtime } = await setup("admit_first");
      const invalid = oneCallGraph(runtime, "payments.refund", () => ({ order: "x" }));
      const refusedInput = await caught(
        runtime.start({
          graph: invalid,
          input: {},
          autonomy: "A2",
          risk: "high",
          capabilities: ["payments:refund"],
        }),
      );
      expect(codeOf(refusedInput)).toBe("TOOL_INPUT_INVALID");
      const valid = oneCallGraph(runtime, "payments.refund", () => ({ order: "x", amount: 5 }));
      const refusedPermission = await caught(
        runtime.start({ graph: valid, input: {}, autonomy: "A2", risk: "high" }),
      );
      expect(codeOf(refusedPermission)).toBe("CAPABILITY_MISSING");
      expect(await runtime.approvals.list()).toEqual([]);
      expect(world.refunds).toEqual([]);
      expect(await searchAudit(store, { type: "gate.approval_requested" })).toEqual([]);
      const refusals = (await searchAudit(store, { stage: "tool_call" })).map((e) => e.type);
      expect(refusals.sort()).toEqual(["tool_call.refused", "tool_call.scope_violation"]);
    });

    it("an approval covers only the request it was asked for: another payload asks again (APPROVAL_MISMATCH)", async () => {
      const { store, world, runtime } = await setup("approval_binding");
      let amount = 10;
      const graph = oneCallGraph(runtime, "payments.refund", () => ({ order: "o", amount }));
      const start = () =>
        runtime.start({
          graph,
          input: {},
          autonomy: "A2",
          risk: "high",
          capabilities: ["payments:refund"],
        });
      const started = await start();
      const first = await runtime.approvals.get(started.waitingFor[0]?.approval_id ?? "");
      expect(first.what).toMatchObject({ tool: "payments.refund", input: { amount: 10 } });
      expect(first.request_hash).toMatch(/^[0-9a-f]{64}$/);
      await runtime.approvals.approve(first.approval_id, APPROVER);
      amount = 10_000; // the node computes another payload when it runs again
      const again = await runtime.resume(started.run.id, graph);
      expect(again.run.status).toBe("paused");
      expect(world.refunds).toEqual([]);
      const [wait] = again.waitingFor;
      expect(wait?.refused?.code).toBe("APPROVAL_MISMATCH");
      expect(wait?.approval_id).not.toBe(first.approval_id);
      const second = await runtime.approvals.get(wait?.approval_id ?? "");
      expect(second.status).toBe("pending");
      expect(second.what).toMatchObject({ input: { amount: 10_000 } });
      const types = (await readAuditTrace(store, started.task.trace_id)).map((e) => e.type);
      expect(types).toContain("gate.approval_mismatch");
      await runtime.approvals.approve(second.approval_id, APPROVER);
      const done = await runtime.resume(started.run.id, graph);
      expect(done.run.status).toBe("succeeded");
      expect(world.refunds).toEqual(["o:10000"]);
    });

    it("one Task table: a failed run is final (a denied run cannot be resumed), retried only on purpose", async () => {
      const { store, world, runtime } = await setup("task_final");
      const graph = oneCallGraph(runtime, "email.send", () => ({ to: "ops", body: "x" }));
      const started = await runtime.start({ graph, input: {}, autonomy: "A2", risk: "high" });
      await runtime.approvals.deny(started.waitingFor[0]?.approval_id ?? "", {
        by: "ana",
        capabilities: ["approve:email.send"],
      });
      expect(codeOf(await caught(runtime.resume(started.run.id, graph)))).toBe("APPROVAL_DENIED");
      const before = await readAuditTrace(store, started.task.trace_id);
      // Called one at a time: a second call started early would reject with no handler yet.
      for (const again of [
        () => runtime.resume(started.run.id, graph),
        () => runtime.runs.execute(started.run.id, async () => null),
      ]) {
        expect(codeOf(await caught(again()))).toBe("RUN_INVALID_TRANSITION");
      }
      expect((await runtime.task(started.run.id)).status).toBe("failed");
      expect(world.emails).toEqual([]);
      expect(await readAuditTrace(store, started.task.trace_id)).toEqual(before);
      // The database-level run table: the same moves on both dialects, and a retry only on request.
      const failed = await runtime.runs.create();
      await caught(
        runtime.runs.execute(failed.id, async () => {
          throw new Error("boom");
        }),
      );
      expect((await runtime.runs.get(failed.id)).status).toBe("failed");
      expect(codeOf(await caught(runtime.runs.cancel(failed.id, "late")))).toBe(
        "RUN_INVALID_TRANSITION",
      );
      const retried = await runtime.runs.execute(failed.id, async () => "ok", { retry: true });
      expect(retried.run.status).toBe("succeeded");
      expect(
        codeOf(await caught(runtime.runs.execute(failed.id, async () => null, { retry: true }))),
      ).toBe("RUN_INVALID_TRANSITION");
    });

    it("a run's status changes commit with their task.* events: a failed audit write leaves the status unchanged", async () => {
      const { store, world, runtime } = await setup("task_atomic");
      const refuse = (on: boolean) =>
        harness.raw(
          store,
          harness.dialect === "sqlite"
            ? on
              ? "CREATE TRIGGER tr_test_no_success BEFORE INSERT ON state_audit_events WHEN NEW.type = 'task.succeeded' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;"
              : "DROP TRIGGER tr_test_no_success;"
            : on
              ? `CREATE FUNCTION fn_test_no_success() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.type = 'task.succeeded' THEN RAISE EXCEPTION 'disk on fire'; END IF; RETURN NEW; END; $$;
                 CREATE TRIGGER tr_test_no_success BEFORE INSERT ON state_audit_events FOR EACH ROW EXECUTE FUNCTION fn_test_no_success();`
              : "DROP TRIGGER tr_test_no_success ON state_audit_events;",
        );
      await refuse(true);
      const graph = oneCallGraph(runtime, "email.send", () => ({ to: "ops", body: "x" }));
      const error = await caught(runtime.start({ graph, input: {}, autonomy: "A4" }));
      expect(codeOf(error)).toBe("AUDIT_WRITE_FAILED");
      const [run] = await runtime.runs.list({ limit: 1 });
      expect(run?.status).toBe("running");
      const types = (await readAuditTrace(store, run?.traceId ?? "")).map((e) => e.type);
      expect(types).not.toContain("task.succeeded");
      expect(types.filter((t) => t.startsWith("task."))).toEqual(["task.created", "task.started"]);
      await refuse(false);
      const recovered = await runtime.recover(run?.id ?? "", graph);
      expect(recovered.run.status).toBe("succeeded");
      expect(world.emails).toEqual(["ops"]);
      const after = (await readAuditTrace(store, run?.traceId ?? "")).map((e) => e.type);
      expect(after.filter((t) => t.startsWith("task."))).toEqual([
        "task.created",
        "task.started",
        "task.recovered",
        "task.succeeded",
      ]);
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });

    it("finds a step by its exact task key (a node name's _ or % is not a wildcard)", async () => {
      const { runtime } = await setup("step_keys");
      const run = await runtime.runs.create();
      const enter = (name: string) =>
        runtime.steps.enter({
          runId: run.id,
          traceId: run.traceId,
          taskKey: `${name}:task-1`,
          name,
          input: {},
          retryPolicy: { strategy: "none", base_delay_ms: 0, max_delay_ms: 0, jitter: false },
          maxAttempts: 1,
        });
      const plain = await enter("nxd");
      const wild = await enter("n_d");
      const percent = await enter("n%");
      expect(new Set([plain.id, wild.id, percent.id]).size).toBe(3);
      expect((await enter("n_d")).id).toBe(wild.id);
    });

    it("a replay hashes requests with the ledger's configured redaction, not a built-in one", async () => {
      const store = await harness.open("replay_redaction");
      const world: Ledgered = { refunds: [], emails: [], failRefunds: 0, crashAfterRefund: false };
      // Order numbers are personal data here: the ledger stores and hashes them masked.
      const redact = (request: Record<string, unknown>) =>
        JSON.parse(JSON.stringify(request, (key, value) => (key === "order" ? "***" : value)));
      const runtime = new GovernedRuntime({ store, tools: governedTools(world), redact });
      const graph = refundGraph(runtime);
      const original = await start(runtime, graph, "small", "A4", "low");
      const [call] = await runtimeDb(store)
        .selectFrom("state_tool_calls")
        .selectAll()
        .where("task_id", "=", original.run.id)
        .orderBy("created_at")
        .execute();
      expect(call?.request_hash).toBe(
        runtime.ledger.hashRequest(runtime.tools.get("orders.lookup"), { order: "x" }, "lookup")
          .hash,
      );
      const report = await runtime.replay(original.run.id, graph);
      expect(report.identical).toBe(true);
    });

    it("a replay honours each tool's replay_policy: rerun runs a read tool again, skip makes no call", async () => {
      const store = await harness.open("replay_policy");
      const seen = { lookups: [] as string[], sent: [] as string[] };
      const runtime = new GovernedRuntime({ store, tools: replayPolicyTools(seen) });
      const graph = priceGraph(runtime);
      const original = await runtime.start({ graph, input: { item: "tea" }, autonomy: "A4" });
      expect(original.run.status).toBe("succeeded");
      expect(seen).toEqual({ lookups: ["tea"], sent: ['{"text":"{\\"price\\":3}"}'] });
      const strict = await runtime.replay(original.run.id, graph);
      expect(strict.identical).toBe(true);
      expect(seen.lookups).toEqual(["tea", "tea"]);
      expect(seen.sent).toHaveLength(1);
      const replayed = await runtime.runs.get(strict.replayRunId);
      expect(replayed.status).toBe("succeeded");
      // A counterfactual goes on past a read tool asked something else: it is run, not stubbed.
      const counter = await runtime.replay(original.run.id, graph, {
        counterfactual: { input: { item: "coffee" } },
      });
      expect(counter.stoppedBy).toBeNull();
      expect(counter.firstDivergence?.at).toBe("quote#1");
      expect(seen.lookups).toEqual(["tea", "tea", "coffee"]);
      expect(seen.sent).toHaveLength(1);
    });

    it("IR 1.1.0's replay policies: recorded-result answers from the ledger and runs again only where it has nothing; fail-loud stops the replay", async () => {
      const store = await harness.open("replay_policy_11");
      const seen = { lookups: [] as string[], sent: [] as string[] };
      const tools = replayPolicyTools(seen, { price: "recorded-result", notify: "must-stub" });
      const runtime = new GovernedRuntime({ store, tools });
      const graph = priceGraph(runtime);
      const original = await runtime.start({ graph, input: { item: "tea" }, autonomy: "A4" });
      expect(original.run.status).toBe("succeeded");
      const strict = await runtime.replay(original.run.id, graph);
      expect(strict.identical).toBe(true);
      expect(seen).toEqual({ lookups: ["tea"], sent: ['{"text":"{\\"price\\":3}"}'] });
      // Asked something the original never asked, the read runs again; the post, must-stub,
      // asked with another text, stops the counterfactual there.
      const counter = await runtime.replay(original.run.id, graph, {
        counterfactual: { input: { item: "coffee" } },
      });
      expect(seen.lookups).toEqual(["tea", "coffee"]);
      expect(counter.stoppedBy?.code).toBe("REPLAY_DIVERGED");
      expect(seen.sent).toHaveLength(1);

      const loudSeen = { lookups: [] as string[], sent: [] as string[] };
      const loudTools = replayPolicyTools(loudSeen, {
        price: "recorded-result",
        notify: "fail-loud",
      });
      const loud = new GovernedRuntime({ store, tools: loudTools });
      const loudGraph = priceGraph(loud);
      const run = await loud.start({ graph: loudGraph, input: { item: "tea" }, autonomy: "A4" });
      expect(run.run.status).toBe("succeeded");
      const error = await loud.replay(run.run.id, loudGraph).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isKeelError(error) && error.code).toBe("REPLAY_FAIL_LOUD");
      const report = await loud.replay(run.run.id, loudGraph, { counterfactual: {} });
      expect(report.identical).toBe(false);
      expect(report.stoppedBy?.code).toBe("REPLAY_FAIL_LOUD");
      expect(loudSeen.sent).toHaveLength(1);
      expect(loudSeen.lookups).toEqual(["tea"]);
    });

    it("an operator continues a decided run with the application module it recorded", async () => {
      const { store, runtime } = await setup("app_continue");
      const app = new URL("./support/refund-app.ts", import.meta.url).href;
      const { appWorld } = await import("./support/refund-app.js");
      const loaded = await loadGovernedApp(app, store);
      const begin = () =>
        loaded.runtime.start({ graph: loaded.graph, input: {}, autonomy: "A2", risk: "high", app });
      const approver = { by: "ana", capabilities: ["approve:email.send"] };
      const first = await begin();
      const firstId = first.waitingFor[0]?.approval_id ?? "";
      expect(await continueGovernedRun(store, first.run.id)).toMatchObject({
        continued: false,
        reason: "still-waiting",
      });
      await runtime.approvals.approve(firstId, approver);
      const done = await continueGovernedRun(store, first.run.id);
      expect(done.continued && done.result.run.status).toBe("succeeded");
      expect(appWorld.emails).toEqual(["app"]);
      const second = await begin();
      await runtime.approvals.deny(second.waitingFor[0]?.approval_id ?? "", approver);
      expect(await continueGovernedRun(store, second.run.id)).toMatchObject({
        continued: false,
        reason: "failed",
        error: { code: "APPROVAL_DENIED" },
      });
      expect(appWorld.emails).toEqual(["app"]);
      // A run that recorded no module waits for the process that started it.
      const graph = oneCallGraph(runtime, "email.send", () => ({ to: "x", body: "y" }));
      const orphan = await runtime.start({ graph, input: {}, autonomy: "A2", risk: "high" });
      expect(await continueGovernedRun(store, orphan.run.id)).toMatchObject({
        continued: false,
        reason: "no-app",
      });
    });

    it("a step's input is immutable in the database", async () => {
      const { store, runtime } = await setup("immutable");
      const graph = refundGraph(runtime);
      const done = await start(runtime, graph, "small", "A4", "low");
      const [step] = await runtime.steps.list(done.run.id);
      await expect(
        harness.raw(store, `UPDATE state_steps SET input_json = '{}' WHERE id = '${step?.id}'`),
      ).rejects.toThrow(/immutable/);
    });
  });
}

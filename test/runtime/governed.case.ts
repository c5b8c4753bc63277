import { afterAll, describe, expect, it } from "vitest";
import { isKeelError } from "../../src/core/index.js";
import { runtimeDb } from "../../src/runtime/db/tables.js";
import {
  GovernedRuntime,
  readAuditTrace,
  startExpirySweep,
  validateContract,
  verifyAuditLog,
} from "../../src/runtime/index.js";
import { ManualClock } from "./support/clock.js";
import { governedTools, type Ledgered, refundGraph } from "./support/governed.js";
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
      const done = await runtime.resume(started.run.id, graph);
      expect(done.run.status).toBe("succeeded");
      expect(world.refunds).toEqual(["big:900"]);
      expect(world.emails).toEqual(["big@example.com"]);

      const task = await runtime.task(started.run.id);
      expect(validateContract("Task", task).ok).toBe(true);
      expect(task.autonomy_level_at_start).toBe("A2");
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

import { afterAll, describe, expect, it } from "vitest";
import { isKeelError } from "../../src/core/index.js";
import {
  GovernedRuntime,
  type ReplayReport,
  readAuditTrace,
  runtimeDb,
} from "../../src/runtime/index.js";
import { governedTools, type Ledgered, oneCallGraph, refundGraph } from "./support/governed.js";
import type { RuntimeHarness } from "./support/harness.js";

const row = (report: ReplayReport, at: string) => report.diff.find((r) => r.at === at);
const gatesOf = (summary: Record<string, unknown> | null | undefined) => summary?.gates;
const SENDER = { by: "ana", reason: "ok", capabilities: ["approve:email.send"] };

/**
 * Replays compare the gate each gated call met (allow, preview, confirm with its approval's
 * decision, block), so a counterfactual whose autonomy or risk changes a gate decision diverges at
 * the step that made the call, and a strict replay gives the original's gate answers.
 */
export function runReplayGateCases(harness: RuntimeHarness): void {
  describe(`replay gate decisions: ${harness.dialect}`, () => {
    afterAll(() => harness.cleanup());

    async function setup(label: string) {
      const store = await harness.open(label);
      const world: Ledgered = { refunds: [], emails: [], failRefunds: 0, crashAfterRefund: false };
      const runtime = new GovernedRuntime({ store, tools: governedTools(world) });
      const send = oneCallGraph(runtime, "email.send", () => ({ to: "a", body: "b" }));
      return { store, world, runtime, send };
    }
    const refundRun = (
      runtime: GovernedRuntime,
      autonomy: "A0" | "A1" | "A2" | "A3" | "A4",
      risk: "low" | "medium" | "high" | "critical",
    ) =>
      runtime.start({
        graph: refundGraph(runtime),
        input: { order: "small" },
        autonomy,
        risk,
        capabilities: ["payments:refund"],
      });

    it("a previewed run replays identically; at a higher autonomy the gate allows, a divergence at the step though every call is the same", async () => {
      const { store, world, runtime } = await setup("gates_preview");
      const graph = refundGraph(runtime);
      const original = await refundRun(runtime, "A2", "medium");
      expect(original.run.status).toBe("succeeded");

      const strict = await runtime.replay(original.run.id, graph);
      expect(strict.identical).toBe(true);
      expect(gatesOf(row(strict, "lookup#1")?.original)).toEqual([]);
      expect(gatesOf(row(strict, "refund#1")?.original)).toEqual(["0=preview"]);
      expect(gatesOf(row(strict, "notify#1")?.replay)).toEqual(["0=preview"]);

      const counter = await runtime.replay(original.run.id, graph, {
        counterfactual: { autonomy: "A4" },
      });
      expect(counter.identical).toBe(false);
      expect(counter.stoppedBy).toBeNull();
      expect(counter.firstDivergence?.at).toBe("refund#1");
      expect(gatesOf(counter.firstDivergence?.original)).toEqual(["0=preview"]);
      expect(gatesOf(counter.firstDivergence?.replay)).toEqual(["0=allow"]);
      // Only the gate differs: the same call, answered from the ledger, the same output.
      expect(counter.firstDivergence?.replay?.calls).toEqual(
        counter.firstDivergence?.original?.calls,
      );
      expect(counter.firstDivergence?.replay?.output).toEqual(
        counter.firstDivergence?.original?.output,
      );
      expect(counter.diff.filter((r) => !r.same).map((r) => r.at)).toEqual([
        "refund#1",
        "notify#1",
      ]);
      // The replays ran no tool and no dry run.
      expect(world.refunds).toEqual(["small:25"]);
      const replayed = await readAuditTrace(
        store,
        (await runtime.task(counter.replayRunId)).trace_id,
      );
      expect(replayed.map((e) => e.type)).not.toContain("gate.preview");
    });

    it("at a lower autonomy a call the original was allowed needs a person: the replay stops there (APPROVAL_PENDING) and asks nobody", async () => {
      const { world, runtime } = await setup("gates_stricter");
      const graph = refundGraph(runtime);
      const original = await refundRun(runtime, "A4", "low");
      const counter = await runtime.replay(original.run.id, graph, {
        counterfactual: { autonomy: "A0" },
      });
      expect(counter.stoppedBy?.code).toBe("APPROVAL_PENDING");
      expect(counter.firstDivergence?.at).toBe("refund#1");
      expect(gatesOf(counter.firstDivergence?.original)).toEqual(["0=allow"]);
      expect(gatesOf(counter.firstDivergence?.replay)).toEqual(["0=confirm:pending"]);
      expect(row(counter, "lookup#1")?.same).toBe(true);
      expect(await runtime.approvals.listForTask(counter.replayRunId)).toEqual([]);
      expect(world.refunds).toEqual(["small:25"]);
    });

    it("a higher risk that blocks the call stops the replay with GATE_BLOCKED at its step", async () => {
      const { runtime, send } = await setup("gates_block");
      const original = await runtime.start({ graph: send, input: {}, autonomy: "A2" });
      expect(original.run.status).toBe("succeeded");
      const counter = await runtime.replay(original.run.id, send, {
        counterfactual: { risk: "critical" },
      });
      expect(counter.stoppedBy?.code).toBe("GATE_BLOCKED");
      expect(counter.firstDivergence).toMatchObject({
        at: "act#1",
        original: { status: "succeeded", gates: ["0=allow"] },
        replay: { status: "failed", gates: ["0=block"] },
      });
    });

    it("approvals' decisions are compared: approved replays as approved, a looser gate diverges; denied gives the same denial", async () => {
      const { world, runtime, send } = await setup("gates_approval");
      const approved = await runtime.start({
        graph: send,
        input: {},
        autonomy: "A2",
        risk: "high",
      });
      await runtime.approvals.approve(approved.waitingFor[0]?.approval_id ?? "", SENDER);
      expect((await runtime.resume(approved.run.id, send)).run.status).toBe("succeeded");
      expect(world.emails).toEqual(["a"]);

      const strict = await runtime.replay(approved.run.id, send);
      expect(strict.identical).toBe(true);
      expect(gatesOf(row(strict, "act#1")?.original)).toEqual(["0=confirm:approved"]);
      const looser = await runtime.replay(approved.run.id, send, {
        counterfactual: { autonomy: "A4" },
      });
      expect(looser.stoppedBy).toBeNull();
      expect(looser.firstDivergence).toMatchObject({
        at: "act#1",
        original: { gates: ["0=confirm:approved"] },
        replay: { gates: ["0=allow"] },
      });

      const denied = await runtime.start({ graph: send, input: {}, autonomy: "A2", risk: "high" });
      await runtime.approvals.deny(denied.waitingFor[0]?.approval_id ?? "", SENDER);
      await runtime.resume(denied.run.id, send).catch(() => {});
      expect((await runtime.task(denied.run.id)).status).toBe("failed");
      // Before gates were compared this strict replay failed with REPLAY_MISSING_CALL.
      const again = await runtime.replay(denied.run.id, send);
      expect(again.stoppedBy?.code).toBe("APPROVAL_DENIED");
      expect(again.firstDivergence).toBeNull();
      expect(row(again, "act#1")).toMatchObject({
        same: true,
        original: { status: "failed", gates: ["0=confirm:denied"] },
      });
      expect(world.emails).toEqual(["a"]);
    });

    it("a blocked call is read back from the audit: the strict replay blocks it too; at a higher autonomy the gate allows it", async () => {
      const { store, runtime, send } = await setup("gates_blocked_original");
      let blocked: unknown;
      try {
        await runtime.start({ graph: send, input: {}, autonomy: "A0", risk: "high" });
      } catch (error) {
        blocked = error;
      }
      expect(isKeelError(blocked) && blocked.code).toBe("GATE_BLOCKED");
      const { id: runId } = await runtimeDb(store)
        .selectFrom("state_run_grants")
        .select("id")
        .executeTakeFirstOrThrow();
      const strict = await runtime.replay(runId, send);
      expect(strict.stoppedBy?.code).toBe("GATE_BLOCKED");
      expect(strict.firstDivergence).toBeNull();
      expect(gatesOf(row(strict, "act#1")?.original)).toEqual(["0=block"]);

      const counter = await runtime.replay(runId, send, { counterfactual: { autonomy: "A4" } });
      expect(counter.firstDivergence).toMatchObject({
        at: "act#1",
        original: { gates: ["0=block"] },
        replay: { gates: ["0=allow"] },
      });
      // The original never made the call, so the replay cannot answer it.
      expect(counter.stoppedBy?.code).toBe("REPLAY_MISSING_CALL");
    });
  });
}

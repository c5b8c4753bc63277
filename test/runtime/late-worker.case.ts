import { afterAll, describe, expect, it } from "vitest";
import { isKeelError, newId } from "../../src/core/index.js";
import {
  AuditWriter,
  readAuditTrace,
  type ToolCallContext,
  ToolLedger,
  ToolRegistry,
  verifyAuditLog,
} from "../../src/runtime/index.js";
import { ManualClock } from "./support/clock.js";
import type { RuntimeHarness } from "./support/harness.js";
import { openSpec } from "./support/tools.js";

const HOUR = 3_600_000;

/**
 * A worker frozen past its lease wakes after an operator settled its call `failed`: it must not
 * act (when its tool checks its claim), and whatever it reports is audited as `late`, never
 * written over the operator's settlement nor dropped.
 */
export function runLateWorkerCases(harness: RuntimeHarness): void {
  describe(`a late worker never acts twice: ${harness.dialect}`, () => {
    afterAll(() => harness.cleanup());

    async function frozenCall(label: string, checks: boolean) {
      const store = await harness.open(label);
      const clock = new ManualClock();
      const audit = new AuditWriter(store, { clock });
      const effects: string[] = [];
      let wake: () => void = () => {};
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      let entered: () => void = () => {};
      const frozen = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const tools = new ToolRegistry();
      tools.register(openSpec("pay", "external", "pays once"), async (_input, context) => {
        entered();
        await woken; // frozen here, past the lease
        if (checks) await (context as ToolCallContext).checkClaim();
        effects.push("paid");
        return { paid: true };
      });
      // A lease the renewal timer will not refresh during the test: the worker is "frozen".
      const worker = new ToolLedger({ store, tools, audit, clock, leaseTtlMs: HOUR });
      const operator = new ToolLedger({ store, tools: new ToolRegistry(), audit, clock });
      const traceId = newId();
      const call = worker
        .call({
          tool: "test.pay",
          input: {},
          idempotencyKey: "pay-1",
          traceId,
          riskLevel: "high",
          autonomyLevel: "A4",
          capabilities: [],
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      await frozen;
      clock.advance(2 * HOUR);
      const [marked] = await operator.recoverInterrupted({ traceId });
      expect(marked?.status).toBe("unknown");
      const id = marked?.tool_call_id as string;
      await operator.resolveUnknown(id, {
        outcome: "failed",
        by: "ops",
        reason: "the provider shows no payment",
      });
      wake();
      const error = await call;
      return { store, error, effects, traceId, id, operator };
    }

    it("a tool that checks its claim does not act; the check is audited as late", async () => {
      const { store, error, effects, traceId, id, operator } = await frozenCall("late_check", true);
      expect(isKeelError(error) && error.code).toBe("TOOL_CALL_LATE");
      expect(effects).toEqual([]);
      expect((await operator.get(id)).toolCall.status).toBe("failed");
      const events = await readAuditTrace(store, traceId);
      expect(events.map((e) => e.type)).toEqual([
        "tool_call.attempted",
        "tool_call.unknown",
        "tool_call.resolved",
        "tool_call.late",
      ]);
      expect(events.at(-1)?.summary).toContain("the effect was not performed");
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });

    it("a late success is audited as late, flagged as contradicting the settlement, not recorded", async () => {
      const { store, error, effects, traceId, id, operator } = await frozenCall("late_ok", false);
      expect(effects).toEqual(["paid"]);
      expect(isKeelError(error) && error.code).toBe("TOOL_CALL_LATE");
      expect(isKeelError(error) && error.hint).toContain("check the world");
      // The operator's settlement stands; the late outcome is in the audit trail.
      expect((await operator.get(id)).toolCall.status).toBe("failed");
      const late = (await readAuditTrace(store, traceId)).filter(
        (e) => e.type === "tool_call.late",
      );
      expect(late).toHaveLength(1);
      expect(late[0]?.summary).toContain("reported succeeded after the call had moved on");
      expect(late[0]?.summary).toContain("disagree");
      expect(late[0]?.payload_ref).not.toBeNull();
    });
  });
}

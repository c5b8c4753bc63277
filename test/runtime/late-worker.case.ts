import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isKeelError, newId } from "../../src/core/index.js";
import { runtimeDb } from "../../src/runtime/db/tables.js";
import {
  AuditWriter,
  readAuditTrace,
  type ToolCallContext,
  ToolLedger,
  ToolRegistry,
  verifyAuditLog,
} from "../../src/runtime/index.js";
import type { Store } from "../../src/store/index.js";
import {
  buildScript,
  type Child,
  lastJson,
  repoRoot,
  startScript,
} from "../checkpoint/support/child-script.js";
import { ManualClock } from "./support/clock.js";
import { bankTools, openBank, payments } from "./support/fenced-bank.js";
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

  // A real frozen worker: a child process stopped with SIGSTOP past its lease, then woken.
  describe(`a frozen worker process: ${harness.dialect}`, { timeout: 60_000 }, () => {
    const LEASE_MS = 400;
    const dir = mkdtempSync(join(tmpdir(), "keel-frozen-"));
    let worker: { path: string; remove?: () => void };
    beforeAll(async () => {
      worker = await buildScript("../runtime/lease/late-worker-child.ts");
      process.env.KEEL_MIGRATIONS_DIR = join(
        repoRoot,
        "src",
        "store",
        "migrations",
        harness.dialect,
      );
    });
    afterAll(() => {
      worker?.remove?.();
      rmSync(dir, { recursive: true, force: true });
    });

    async function frozenChild(label: string, mode: "between" | "inside") {
      const store = await harness.open(label);
      const db = store.location.dialect === "sqlite" ? store.location.path : store.location.url;
      const bankPath = join(dir, `${label}.bank`);
      const bank = openBank(bankPath);
      const traceId = newId();
      const child = startScript(worker.path, [mode, db, traceId, bankPath, String(LEASE_MS)]);
      const line = await child.line((l) => l === "attempted" || l.startsWith("entered "));
      child.process.kill("SIGSTOP");
      await leaseLapsed(store, traceId);
      return { store, bank, traceId, child, line };
    }

    /** Waits until the stopped worker's lease on its call has expired (it cannot renew it). */
    async function leaseLapsed(store: Store, traceId: string): Promise<void> {
      for (;;) {
        const row = await runtimeDb(store)
          .selectFrom("state_tool_calls")
          .select("lease_expires_at")
          .where("trace_id", "=", traceId)
          .executeTakeFirst();
        if (row && Number(row.lease_expires_at) < Date.now()) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }

    async function wake(child: Child): Promise<{ code?: string; status?: string }> {
      child.process.kill("SIGCONT");
      child.send("go");
      return lastJson(await child.exit);
    }

    it("frozen after its claim, woken after an operator settled the call failed: the ledger re-checks and it does not act", async () => {
      const { store, bank, traceId, child } = await frozenChild("frozen_between", "between");
      const operator = new ToolLedger({
        store,
        tools: new ToolRegistry(),
        audit: new AuditWriter(store),
      });
      const [marked] = await operator.recoverInterrupted({ traceId });
      expect(marked?.status).toBe("unknown");
      const id = marked?.tool_call_id as string;
      await operator.resolveUnknown(id, { outcome: "failed", by: "ops", reason: "not paid" });
      // The tool never calls checkClaim itself: the ledger does, before running it.
      expect(await wake(child)).toEqual({ code: "TOOL_CALL_LATE" });
      expect(payments(bank)).toEqual([]);
      expect((await operator.get(id)).toolCall.status).toBe("failed");
      const late = (await readAuditTrace(store, traceId)).filter(
        (e) => e.type === "tool_call.late",
      );
      expect(late.map((e) => e.summary.includes("the effect was not performed"))).toEqual([true]);
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });

    it("frozen inside its tool while another worker retried the call: the outside system refuses its stale fence", async () => {
      const { store, bank, traceId, child, line } = await frozenChild("frozen_inside", "inside");
      const stale = Number(line.split(" ")[1]);
      const retrier = new ToolLedger({
        store,
        tools: bankTools(bank, "retrier"),
        audit: new AuditWriter(store),
      });
      await retrier.recoverInterrupted({ traceId });
      const retried = await retrier.call({
        tool: "test.pay",
        input: {},
        idempotencyKey: "pay-1",
        traceId,
        riskLevel: "high",
        autonomyLevel: "A4",
      });
      expect(retried.toolCall.status).toBe("succeeded");
      const [paid] = payments(bank);
      expect(paid?.by).toBe("retrier");
      expect(paid?.fence).toBeGreaterThan(stale);

      expect(await wake(child)).toEqual({ code: "TOOL_CALL_LATE" });
      // Paid once, by the retrier; the woken worker's outcome is audited late, not recorded.
      expect(payments(bank)).toHaveLength(1);
      const events = await readAuditTrace(store, traceId);
      expect(events.map((e) => e.type)).toEqual([
        "tool_call.attempted",
        "tool_call.unknown",
        "tool_call.retried",
        "tool_call.succeeded",
        "tool_call.late",
      ]);
      expect(events.at(-1)?.summary).toContain("reported failed after the call had moved on");
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });
  });
}

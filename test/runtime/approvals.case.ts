import { afterAll, describe, expect, it } from "vitest";
import { isKeelError, newId } from "../../src/core/index.js";
import { runtimeDb } from "../../src/runtime/db/tables.js";
import {
  ApprovalService,
  AuditWriter,
  readAuditTrace,
  validateContract,
  verifyAuditLog,
} from "../../src/runtime/index.js";
import { ManualClock } from "./support/clock.js";
import { breakInserts, type RuntimeHarness } from "./support/harness.js";

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

const codeOf = (error: unknown) => (isKeelError(error) ? error.code : undefined);

export function runApprovalCases(harness: RuntimeHarness): void {
  describe(`approvals: ${harness.dialect}`, () => {
    afterAll(() => harness.cleanup());

    async function setup(label: string) {
      const store = await harness.open(label);
      const clock = new ManualClock();
      const audit = new AuditWriter(store, { clock });
      const approvals = new ApprovalService({ store, audit, clock });
      const traceId = newId();
      const request = (overrides: Record<string, unknown> = {}) =>
        approvals.request({
          traceId,
          refs: { taskId: newId(), stepId: newId() },
          riskLevel: "high",
          autonomyLevel: "A2",
          what: { tool: "ops.deploy", input: { service: "api", version: "1.4.2" } },
          why: "a production deploy needs a person",
          requiredCapability: "deploy:approve",
          ...overrides,
        });
      return { store, clock, approvals, traceId, request };
    }

    it("creates a pending approval that expires in one hour, with what, why and how to approve", async () => {
      const { approvals, request, store, traceId } = await setup("approvals_request");
      const approval = await request();
      expect(validateContract("Approval", approval).ok).toBe(true);
      expect(approval).toMatchObject({
        status: "pending",
        created_at: "2026-05-01T10:00:00.000Z",
        expires_at: "2026-05-01T11:00:00.000Z",
        risk_level: "high",
        autonomy_level: "A2",
        what: { tool: "ops.deploy", input: { service: "api", version: "1.4.2" } },
        why: "a production deploy needs a person",
        decision: { by: null, at: null, reason: null },
        required_capability: "deploy:approve",
      });
      expect(approval.how_to_approve).toContain(
        `keel approvals approve ${approval.approval_id} --capability deploy:approve`,
      );
      expect(await approvals.get(approval.approval_id)).toEqual(approval);
      expect((await approvals.list({ status: "pending" })).map((a) => a.approval_id)).toEqual([
        approval.approval_id,
      ]);
      // Followed literally, the instruction's capability is the one the decision needs.
      const asserted = /--capability (\S+)/.exec(approval.how_to_approve)?.[1];
      const odd = await request({ requiredCapability: "ops approve's" });
      expect(odd.how_to_approve).toContain(`--capability 'ops approve'\\''s'`);
      const bare = await request({ requiredCapability: null });
      expect(bare.how_to_approve).not.toContain("--capability");
      expect((await readAuditTrace(store, traceId)).map((e) => e.type)).toEqual([
        "gate.approval_requested",
        "gate.approval_requested",
        "gate.approval_requested",
      ]);
      const approved = await approvals.approve(approval.approval_id, {
        by: "ana",
        capabilities: asserted ? [asserted] : [],
      });
      expect(approved.status).toBe("approved");
    });

    it("approves and denies with who, when, reason and the capability, audited", async () => {
      const { approvals, request, clock, store, traceId } = await setup("approvals_decide");
      const a = await request();
      const b = await request({ requiredCapability: null });
      clock.advance(60_000);
      const approved = await approvals.approve(a.approval_id, {
        by: "ana",
        reason: "release notes checked",
        capabilities: ["deploy:approve"],
      });
      expect(approved.status).toBe("approved");
      expect(approved.decision).toEqual({
        by: "ana",
        at: "2026-05-01T10:01:00.000Z",
        reason: "release notes checked",
      });
      const [row] = await runtimeDb(store)
        .selectFrom("state_approvals")
        .select("decision_capability")
        .where("id", "=", a.approval_id)
        .execute();
      expect(row?.decision_capability).toBe("deploy:approve");
      const denied = await approvals.deny(b.approval_id, { by: "bo", reason: "not today" });
      expect(denied.status).toBe("denied");
      expect(validateContract("Approval", denied).ok).toBe(true);
      const types = (await readAuditTrace(store, traceId)).map((e) => e.type);
      expect(types).toEqual([
        "gate.approval_requested",
        "gate.approval_requested",
        "gate.approved",
        "gate.denied",
      ]);
    });

    it("refuses deciding twice, also when two deciders race", async () => {
      const { approvals, request, store, traceId } = await setup("approvals_twice");
      const a = await request({ requiredCapability: null });
      await approvals.approve(a.approval_id, { by: "ana" });
      const again = await caught(approvals.deny(a.approval_id, { by: "bo" }));
      expect(codeOf(again)).toBe("APPROVAL_ALREADY_DECIDED");
      expect(String((again as Error).message)).toContain("already approved by ana");
      const b = await request({ requiredCapability: null });
      const results = await Promise.allSettled([
        approvals.approve(b.approval_id, { by: "ana" }),
        approvals.deny(b.approval_id, { by: "bo" }),
        approvals.approve(b.approval_id, { by: "cy" }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results.filter((r) => r.status === "rejected")) {
        expect(codeOf((r as PromiseRejectedResult).reason)).toBe("APPROVAL_ALREADY_DECIDED");
      }
      const audit = await readAuditTrace(store, traceId);
      expect(audit.filter((e) => e.type === "gate.decision_refused")).toHaveLength(3);
    });

    it("expires a pending approval, fails clearly and refuses deciding it", async () => {
      const { approvals, request, clock, store, traceId } = await setup("approvals_expiry");
      const a = await request({ ttlSeconds: 60 });
      clock.advance(60_000);
      const error = await caught(
        approvals.approve(a.approval_id, { by: "ana", capabilities: ["deploy:approve"] }),
      );
      expect(codeOf(error)).toBe("APPROVAL_EXPIRED");
      expect(String((error as Error).message)).toContain("expired at 2026-05-01T10:01:00.000Z");
      expect((await approvals.get(a.approval_id)).status).toBe("expired");
      expect(
        codeOf(
          await caught(
            approvals.deny(a.approval_id, { by: "ana", capabilities: ["deploy:approve"] }),
          ),
        ),
      ).toBe("APPROVAL_EXPIRED");
      const b = await request();
      clock.advance(3_600_000);
      expect((await approvals.expireDue()).map((x) => x.approval_id)).toEqual([b.approval_id]);
      expect(await approvals.expireDue()).toEqual([]);
      const types = (await readAuditTrace(store, traceId)).map((e) => e.type);
      expect(types.filter((t) => t === "gate.expired")).toHaveLength(2);
    });

    it("refuses a decider without the required capability and keeps the approval pending", async () => {
      const { approvals, request, store, traceId } = await setup("approvals_capability");
      const a = await request();
      const error = await caught(
        approvals.approve(a.approval_id, { by: "eve", capabilities: ["deploy:read"] }),
      );
      expect(codeOf(error)).toBe("CAPABILITY_MISSING");
      expect((await approvals.get(a.approval_id)).status).toBe("pending");
      const last = (await readAuditTrace(store, traceId)).at(-1);
      expect(last).toMatchObject({ type: "gate.decision_refused", outcome: "failure" });
    });

    it("refuses unknown approvals, nameless deciders and bad expiries", async () => {
      const { approvals, request } = await setup("approvals_bad");
      expect(codeOf(await caught(approvals.approve(newId(), { by: "ana" })))).toBe(
        "APPROVAL_NOT_FOUND",
      );
      const a = await request();
      expect(codeOf(await caught(approvals.approve(a.approval_id, { by: " " })))).toBe(
        "INVALID_ARGUMENT",
      );
      expect(codeOf(await caught(request({ ttlSeconds: 0 })))).toBe("INVALID_ARGUMENT");
      expect(codeOf(await caught(request({ why: "" })))).toBe("INVALID_ARGUMENT");
    });

    it("creates nothing when the request cannot be audited", async () => {
      const { approvals, request, store } = await setup("approvals_audit_down");
      await breakInserts(harness, store, "state_audit_events");
      expect(codeOf(await caught(request()))).toBe("AUDIT_WRITE_FAILED");
      expect(await runtimeDb(store).selectFrom("state_approvals").selectAll().execute()).toEqual(
        [],
      );
      expect(await approvals.list()).toEqual([]);
    });

    it("leaves a verifiable audit chain", async () => {
      const { approvals, request, store } = await setup("approvals_chain");
      const a = await request({ requiredCapability: null });
      await approvals.approve(a.approval_id, { by: "ana" });
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });
  });
}

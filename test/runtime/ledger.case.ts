import { afterAll, describe, expect, it } from "vitest";
import { hashValue, isKeelError, type KeelError, newId } from "../../src/core/index.js";
import { runtimeDb } from "../../src/runtime/db/tables.js";
import {
  AuditWriter,
  getArtifact,
  readAuditTrace,
  stepTools,
  type ToolCallRequest,
  ToolLedger,
  validateContract,
  verifyAuditLog,
} from "../../src/runtime/index.js";
import type { Store } from "../../src/store/index.js";
import { ManualClock } from "./support/clock.js";
import { breakInserts, type RuntimeHarness } from "./support/harness.js";
import { openSpec, ToolFailure, testTools, type World } from "./support/tools.js";

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

function codeOf(error: unknown): string | undefined {
  return isKeelError(error) ? error.code : undefined;
}

export function runLedgerCases(harness: RuntimeHarness): void {
  describe(`tool-call ledger: ${harness.dialect}`, () => {
    afterAll(() => harness.cleanup());

    async function setup(label: string) {
      const store = await harness.open(label);
      const clock = new ManualClock();
      const world: World = { lines: [], calls: 0 };
      const tools = testTools(world);
      const audit = new AuditWriter(store, { clock });
      const ledger = new ToolLedger({ store, tools, audit, clock });
      const traceId = newId();
      const request = (overrides: Partial<ToolCallRequest> = {}): ToolCallRequest => ({
        tool: "test.append",
        input: { line: "hello" },
        idempotencyKey: "step-1:append",
        traceId,
        riskLevel: "medium",
        autonomyLevel: "A3",
        capabilities: ["fs:write"],
        ...overrides,
      });
      return { store, clock, world, tools, audit, ledger, traceId, request };
    }

    const rows = (store: Store) =>
      runtimeDb(store).selectFrom("state_tool_calls").selectAll().execute();

    it("commits attempted before the effect, then succeeded with latency and a result artifact", async () => {
      const { store, clock, world, tools, audit, traceId, request } = await setup("ledger_success");
      const seenDuringEffect: string[] = [];
      tools.register(
        openSpec("observe", "write", "sees the ledger while it runs", { version: "2.0.0" }),
        async () => {
          // Read through the store (another pooled connection on Postgres): the row is committed.
          for (const row of await rows(store)) seenDuringEffect.push(row.status);
          clock.advance(42);
          world.lines.push("observed");
          return { ok: true };
        },
      );
      const ledger = new ToolLedger({ store, tools, audit, clock });
      const input = { line: "x", token: "s3cret" };
      const outcome = await ledger.call(
        request({ tool: "test.observe", input, idempotencyKey: "k-observe" }),
      );
      expect(seenDuringEffect).toEqual(["attempted"]);
      expect(outcome.replayed).toBe(false);
      expect(outcome.output).toEqual({ ok: true });
      expect(outcome.toolCall).toMatchObject({
        status: "succeeded",
        latency_ms: 42,
        tool_name: "test.observe",
        action: "observe",
        connector_id: "test",
        idempotency_key: "k-observe",
        autonomy_level: "A3",
      });
      expect(validateContract("ToolCall", outcome.toolCall).ok).toBe(true);
      expect(validateContract("ToolResult", outcome.result).ok).toBe(true);
      const redacted = {
        tool: "test.observe",
        version: "2.0.0",
        action: "observe",
        input: { line: "x", token: "[REDACTED]" },
      };
      expect(outcome.toolCall.request_hash).toBe(hashValue(redacted));
      const [row] = await rows(store);
      // The redacted request is kept on the row, as the canonical JSON its hash is taken of.
      expect(row?.request_artifact_id).toBeNull();
      expect(JSON.parse(row?.request_json as string)).toEqual(redacted);
      expect(hashValue(JSON.parse(row?.request_json as string))).toBe(row?.request_hash);
      expect(await getArtifact(runtimeDb(store), row?.result_artifact_id as string)).toEqual({
        ok: true,
      });
      expect(outcome.result.response_hash).toBe(hashValue({ ok: true }));
      expect((await readAuditTrace(store, traceId)).map((e) => e.type)).toEqual([
        "tool_call.attempted",
        "tool_call.succeeded",
      ]);
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });

    it("records a synchronous tool's answer, a thenable's resolved value and a synchronous throw", async () => {
      // The ledger awaits a tool's answer only when it is a promise or a thenable.
      const { store, clock, tools, audit, request } = await setup("ledger_sync_tools");
      tools.register(openSpec("sync", "write", "answers at once"), () => ({ at: "once" }));
      tools.register(openSpec("thenable", "write", "answers through a thenable"), () => ({
        // biome-ignore lint/suspicious/noThenProperty: the thenable under test
        then: (resolve: (value: unknown) => void) => resolve({ at: "later" }),
      }));
      tools.register(openSpec("throws", "write", "throws before returning"), () => {
        throw new ToolFailure("NOPE", "refused at once", { retryable: false });
      });
      const ledger = new ToolLedger({ store, tools, audit, clock });
      const sync = await ledger.call(request({ tool: "test.sync", idempotencyKey: "k-sync" }));
      expect(sync.output).toEqual({ at: "once" });
      expect(sync.result.response_hash).toBe(hashValue({ at: "once" }));
      const later = await ledger.call(request({ tool: "test.thenable", idempotencyKey: "k-then" }));
      expect(later.output).toEqual({ at: "later" });
      expect(later.result.response_hash).toBe(hashValue({ at: "later" }));
      const thrown = await caught(
        ledger.call(request({ tool: "test.throws", idempotencyKey: "k-throw" })),
      );
      expect(codeOf(thrown)).toBe("TOOL_CALL_FAILED");
      const byKey = new Map((await rows(store)).map((row) => [row.idempotency_key, row.status]));
      expect(Object.fromEntries(byKey)).toEqual({
        "k-sync": "succeeded",
        "k-then": "succeeded",
        "k-throw": "failed",
      });
    });

    it("answers a succeeded call from the ledger without running it again", async () => {
      const { store, world, ledger, traceId, request } = await setup("ledger_replay");
      const first = await ledger.call(request());
      const again = await ledger.call(request());
      expect(world.lines).toEqual(["hello"]);
      expect(world.calls).toBe(1);
      expect(again.replayed).toBe(true);
      expect(again.output).toEqual(first.output);
      expect(again.toolCall.tool_call_id).toBe(first.toolCall.tool_call_id);
      expect((await readAuditTrace(store, traceId)).map((e) => e.type)).toEqual([
        "tool_call.attempted",
        "tool_call.succeeded",
        "tool_call.replayed",
      ]);
    });

    it("refuses an idempotency key reused for a different request, audited", async () => {
      const { store, world, ledger, traceId, request } = await setup("ledger_conflict");
      await ledger.call(request());
      const error = await caught(ledger.call(request({ input: { line: "other" } })));
      expect(codeOf(error)).toBe("IDEMPOTENCY_CONFLICT");
      expect(world.calls).toBe(1);
      expect((await readAuditTrace(store, traceId)).at(-1)?.type).toBe("tool_call.refused");
    });

    it("records a definite failure as failed, and runs the step's retry again", async () => {
      const { store, world, ledger, request } = await setup("ledger_failed");
      world.failNext = {
        error: new ToolFailure("REJECTED", "the API refused it", { retryable: true }),
        effectThenThrow: false,
      };
      const error = await caught(ledger.call(request()));
      expect(codeOf(error)).toBe("TOOL_CALL_FAILED");
      const [failed] = await rows(store);
      expect(failed?.status).toBe("failed");
      expect(JSON.parse(failed?.error_json as string)).toEqual({
        code: "REJECTED",
        message: "the API refused it",
        retryable: true,
        details: {},
      });
      const retried = await ledger.call(request());
      expect(retried.toolCall.status).toBe("succeeded");
      expect(retried.toolCall.tool_call_id).not.toBe(failed?.id);
      expect(world.lines).toEqual(["hello"]);
    });

    it("records a transport failure as unknown, never succeeded, and holds it for an operator", async () => {
      const { store, world, ledger, traceId, request } = await setup("ledger_unknown");
      world.failNext = { error: new Error("socket hang up"), effectThenThrow: true };
      expect(codeOf(await caught(ledger.call(request())))).toBe("TOOL_CALL_UNKNOWN");
      expect((await rows(store)).map((r) => r.status)).toEqual(["unknown"]);
      // Resuming the step: the non-idempotent tool is not run again.
      expect(codeOf(await caught(ledger.call(request())))).toBe("TOOL_CALL_UNKNOWN");
      expect(world.calls).toBe(1);
      expect(world.lines).toEqual(["hello"]);
      const unknown = await ledger.listUnknown();
      expect(unknown.map((c) => c.status)).toEqual(["unknown"]);
      const types = (await readAuditTrace(store, traceId)).map((e) => e.type);
      expect(types).toEqual(["tool_call.attempted", "tool_call.unknown", "tool_call.held"]);
      // The operator checked: the line was written. The next call answers from the ledger.
      const settled = await ledger.resolveUnknown(unknown[0]?.tool_call_id as string, {
        outcome: "succeeded",
        output: { count: 1 },
        by: "ana",
        reason: "the line is in the file",
      });
      expect(settled.toolCall.status).toBe("succeeded");
      const after = await ledger.call(request());
      expect(after.replayed).toBe(true);
      expect(after.output).toEqual({ count: 1 });
      expect(world.calls).toBe(1);
      const refused = await caught(
        ledger.resolveUnknown(unknown[0]?.tool_call_id as string, {
          outcome: "failed",
          by: "bo",
          reason: "x",
        }),
      );
      expect(codeOf(refused)).toBe("ILLEGAL_TRANSITION");
    });

    it("refuses an operator's output that the tool could not have returned, recording nothing", async () => {
      const { store, world, ledger, request } = await setup("ledger_settle_output");
      world.failNext = { error: new Error("socket hang up"), effectThenThrow: true };
      expect(codeOf(await caught(ledger.call(request())))).toBe("TOOL_CALL_UNKNOWN");
      const [doubt] = await rows(store);
      const refused = await caught(
        ledger.resolveUnknown(doubt?.id as string, {
          outcome: "succeeded",
          output: { count: "many" },
          by: "ana",
          reason: "the line is in the file",
        }),
      );
      expect(codeOf(refused)).toBe("TOOL_OUTPUT_INVALID");
      expect((refused as KeelError).details.problems).toEqual([
        expect.objectContaining({ path: "/count" }),
      ]);
      expect((await rows(store)).map((r) => r.status)).toEqual(["unknown"]);
      const settled = await ledger.resolveUnknown(doubt?.id as string, {
        outcome: "succeeded",
        output: { count: 1 },
        by: "ana",
        reason: "the line is in the file",
      });
      expect(settled.toolCall.status).toBe("succeeded");
    });

    it("refuses to settle a call that is not in doubt: one still in flight is left to its owner", async () => {
      const { store, tools, ledger, request } = await setup("ledger_settle_in_flight");
      let release: (() => void) | undefined;
      tools.register(openSpec("held", "external", "answers when released"), () => {
        return new Promise((resolve) => {
          release = () => resolve({ ok: true });
        });
      });
      const inFlight = ledger.call(
        request({ tool: "test.held", input: {}, idempotencyKey: "held-1" }),
      );
      while (release === undefined) await new Promise((resolve) => setImmediate(resolve));
      const [attempted] = await rows(store);
      expect(attempted?.status).toBe("attempted");
      const refused = await caught(
        ledger.resolveUnknown(attempted?.id as string, {
          outcome: "failed",
          by: "ana",
          reason: "looked too early",
        }),
      );
      expect(codeOf(refused)).toBe("ILLEGAL_TRANSITION");
      expect((refused as KeelError).details).toMatchObject({ from: "attempted", to: "failed" });
      release();
      expect((await inFlight).toolCall.status).toBe("succeeded");
      expect((await rows(store)).map((r) => r.status)).toEqual(["succeeded"]);
    });

    it("runs a retry-safe tool again when its earlier outcome is unknown, on the same ledger entry", async () => {
      const { world, ledger, request } = await setup("ledger_idempotent");
      const req = request({ tool: "test.append_idem", idempotencyKey: "idem-1" });
      world.failNext = { error: new Error("timeout"), effectThenThrow: false };
      expect(codeOf(await caught(ledger.call(req)))).toBe("TOOL_CALL_UNKNOWN");
      const retried = await ledger.call(req);
      expect(retried.toolCall.status).toBe("succeeded");
      expect(world.calls).toBe(2);
      expect((await ledger.listUnknown()).length).toBe(0);
    });

    it("a retry-safe call in doubt is run again by one worker at a time: its retry holds the lease", async () => {
      const { store, tools, audit, clock, ledger, request } = await setup("ledger_retry_lease");
      let runs = 0;
      let release: (() => void) | undefined;
      tools.register(
        openSpec("slow_idem", "external", "times out once, then answers when released", {
          idempotency_key: "request_id",
        }),
        () => {
          runs += 1;
          if (runs === 1) throw new Error("timeout");
          return new Promise((resolve) => {
            release = () => resolve({ ok: true });
          });
        },
      );
      const req = request({ tool: "test.slow_idem", input: {}, idempotencyKey: "slow-1" });
      expect(codeOf(await caught(ledger.call(req)))).toBe("TOOL_CALL_UNKNOWN");
      // The first worker retries it; while that retry runs, a second worker must not run it too.
      const retry = ledger.call(req);
      while (!release) await new Promise((r) => setTimeout(r, 5));
      const other = new ToolLedger({ store, tools, audit, clock });
      const refused = await caught(other.call(req));
      expect(codeOf(refused)).toBe("ILLEGAL_TRANSITION");
      expect((refused as Error).message).toContain("in flight");
      expect(await other.recoverInterrupted()).toEqual([]);
      expect(runs).toBe(2);
      release();
      expect((await retry).toolCall.status).toBe("succeeded");
      // Settled: the second worker now gets the recorded result, without running it.
      expect((await other.call(req)).replayed).toBe(true);
      expect(runs).toBe(2);
      expect((await rows(store)).map((r) => [r.status, r.lease_expires_at])).toEqual([
        ["succeeded", null],
      ]);
    });

    it("turns calls interrupted mid-effect into unknown on recovery, never success", async () => {
      const { store, world, tools, audit, clock, ledger, request } = await setup("ledger_crash");
      let release: (() => void) | undefined;
      tools.register(
        openSpec("hang", "external", "never answers (the process dies)"),
        () =>
          new Promise((resolve) => {
            world.lines.push("sent");
            release = () => resolve({});
          }),
      );
      void ledger
        .call(request({ tool: "test.hang", input: {}, idempotencyKey: "hang-1" }))
        .catch(() => {});
      while (!release) await new Promise((r) => setTimeout(r, 5));
      // Another execution (a new ledger on the same database) while the owner's lease is live:
      // the call is in flight, not in doubt — neither recovery nor a second call marks it.
      const resumed = new ToolLedger({ store, tools, audit, clock });
      expect(await resumed.recoverInterrupted()).toEqual([]);
      const second = await caught(
        resumed.call(request({ tool: "test.hang", input: {}, idempotencyKey: "hang-1" })),
      );
      expect(codeOf(second)).toBe("ILLEGAL_TRANSITION");
      expect((second as Error).message).toContain(ledger.owner);
      expect((await rows(store)).map((r) => [r.status, r.lease_owner])).toEqual([
        ["attempted", ledger.owner],
      ]);
      // The owner stops renewing (its process hung or died elsewhere): once the lease expires,
      // recovery may mark it.
      clock.advance(30_001);
      const recovered = await resumed.recoverInterrupted();
      expect(recovered.map((c) => [c.tool_name, c.status])).toEqual([["test.hang", "unknown"]]);
      expect(
        codeOf(
          await caught(
            resumed.call(request({ tool: "test.hang", input: {}, idempotencyKey: "hang-1" })),
          ),
        ),
      ).toBe("TOOL_CALL_UNKNOWN");
      expect(world.lines).toEqual(["sent"]);
      // The old process's late answer cannot overwrite what recovery recorded.
      release();
      await new Promise((r) => setTimeout(r, 20));
      expect((await rows(store)).map((r) => r.status)).toEqual(["unknown"]);
    });

    it("records output that fails its schema as unknown for a write tool", async () => {
      const { store, ledger, request } = await setup("ledger_bad_output");
      const error = await caught(
        ledger.call(request({ tool: "test.bad_output", idempotencyKey: "bad-1" })),
      );
      expect(codeOf(error)).toBe("TOOL_OUTPUT_INVALID");
      expect((await rows(store)).map((r) => r.status)).toEqual(["unknown"]);
    });

    it("records a read tool's error as failed: nothing outward happened", async () => {
      const { store, world, ledger, request } = await setup("ledger_read_error");
      world.failNext = { error: new Error("ECONNRESET"), effectThenThrow: false };
      const error = await caught(
        ledger.call(request({ tool: "test.read", idempotencyKey: "r-1" })),
      );
      expect(codeOf(error)).toBe("TOOL_CALL_FAILED");
      expect((await rows(store)).map((r) => r.status)).toEqual(["failed"]);
    });

    it("refuses bad calls clearly, audits each refusal first, and records no call", async () => {
      const { store, world, ledger, traceId, request } = await setup("ledger_refusals");
      const cases: [Partial<ToolCallRequest>, string, string][] = [
        [{ tool: "test.nope" }, "TOOL_NOT_FOUND", "tool_call.refused"],
        [{ profile: "cleared" }, "TOOL_FORBIDDEN", "tool_call.refused"],
        [{ capabilities: [] }, "CAPABILITY_MISSING", "tool_call.scope_violation"],
        [{ input: { line: "" } }, "TOOL_INPUT_INVALID", "tool_call.refused"],
        [{ idempotencyKey: "" }, "INVALID_ARGUMENT", "tool_call.refused"],
      ];
      for (const [overrides, code, type] of cases) {
        const error = await caught(ledger.call(request(overrides)));
        expect(codeOf(error), code).toBe(code);
        const last = (await readAuditTrace(store, traceId)).at(-1);
        expect(last, code).toMatchObject({ type, outcome: "failure", stage: "tool_call" });
        const payload = await getArtifact(runtimeDb(store), last?.payload_ref as string);
        expect(payload).toMatchObject({ code });
      }
      expect(world.calls).toBe(0);
      expect(await rows(store)).toEqual([]);
    });

    it("records each call's cost as the tool's decimal cost estimate", async () => {
      const { store, ledger, traceId, request } = await setup("ledger_cost");
      await ledger.call(request({ tool: "test.priced_append" }));
      await ledger.call(request({ idempotencyKey: "free" }));
      const costs = (await rows(store)).map((row) => [row.tool_name, row.cost_estimate]);
      expect(costs.sort()).toEqual([
        ["test.append", null],
        ["test.priced_append", "0.0025"],
      ]);
      const attempted = (await readAuditTrace(store, traceId)).find(
        (e) => e.type === "tool_call.attempted" && e.tool_name === "test.priced_append",
      );
      expect(attempted?.summary).toContain("cost estimate 0.0025");
    });

    it("audits every call of a deprecated tool and warns once per process", async () => {
      const { store, world, ledger, traceId, request } = await setup("ledger_deprecated");
      const warnings: string[] = [];
      const listen = (warning: Error & { code?: string }) => {
        if (warning.code === "KEEL_TOOL_DEPRECATED") warnings.push(warning.message);
      };
      process.on("warning", listen);
      try {
        for (const key of ["k1", "k2"]) {
          await ledger.call(request({ tool: "test.old_append", idempotencyKey: key }));
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      } finally {
        process.off("warning", listen);
      }
      expect(world.lines).toEqual(["hello", "hello"]);
      const deprecated = (await readAuditTrace(store, traceId)).filter(
        (e) => e.type === "tool_call.deprecated",
      );
      expect(deprecated.map((e) => [e.tool_name, e.outcome])).toEqual([
        ["test.old_append", "info"],
        ["test.old_append", "info"],
      ]);
      expect(warnings).toEqual([expect.stringContaining('"test.old_append" 1.0.0 is deprecated')]);
    });

    it("gives a resumed step the same idempotency keys, so its calls are answered from the ledger", async () => {
      const { world, ledger, traceId } = await setup("ledger_step_tools");
      const taskId = newId();
      const scope = {
        traceId,
        taskId,
        stepName: "write-lines",
        riskLevel: "low" as const,
        autonomyLevel: "A4" as const,
        capabilities: ["fs:write"],
      };
      const first = stepTools(ledger, scope);
      await first.call("test.append", { line: "a" });
      world.failNext = {
        error: new ToolFailure("DOWN", "try later", { retryable: true }),
        effectThenThrow: false,
      };
      expect(codeOf(await caught(first.call("test.append", { line: "b" })))).toBe(
        "TOOL_CALL_FAILED",
      );
      // The step is retried from the start with a fresh context.
      const retry = stepTools(ledger, scope);
      const a = await retry.callWithOutcome("test.append", { line: "a" });
      const b = await retry.callWithOutcome("test.append", { line: "b" });
      expect([a.replayed, b.replayed]).toEqual([true, false]);
      expect(a.toolCall.idempotency_key).toBe(`${taskId}:write-lines:0`);
      expect(b.toolCall.idempotency_key).toBe(`${taskId}:write-lines:1`);
      expect(world.lines).toEqual(["a", "b"]);
      const named = await retry.callWithOutcome("test.append", { line: "c" }, { key: "final" });
      expect(named.toolCall.idempotency_key).toBe(`${taskId}:write-lines:final`);
    });

    it("does not run the effect when the attempted record cannot be audited", async () => {
      const { store, world, ledger, request } = await setup("ledger_audit_down");
      await breakInserts(harness, store, "state_audit_events");
      expect(codeOf(await caught(ledger.call(request())))).toBe("AUDIT_WRITE_FAILED");
      expect(world.calls).toBe(0);
      expect(await rows(store)).toEqual([]);
    });
  });
}

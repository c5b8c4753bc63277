import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import {
  ActorType,
  ApprovalStatus,
  AuditOutcome,
  AutonomyLevel,
  ChannelEnum,
  CONTRACT_NAMES,
  contractJsonSchema,
  ExecutionMode,
  GateType,
  PipelineStage,
  ResultStatus,
  RetryStrategy,
  RiskLevel,
  Sensitivity,
  StepStatus,
  TaskStatus,
  ToolCallStatus,
  validateContract,
} from "../../src/runtime/contracts/index.js";
import { toJsonPointer } from "../../src/runtime/validation/problems.js";
import {
  AT,
  approval,
  messageEvent,
  retryPolicy,
  step,
  toolCall,
  VALID_EXAMPLES,
} from "./fixtures.js";

function problemsOf(name: Parameters<typeof validateContract>[0], value: unknown) {
  const result = validateContract(name, value);
  if (result.ok) throw new Error(`expected ${name} to be refused`);
  return result.problems;
}

describe("seed-003 contracts", () => {
  it("keeps the seed's enum values exactly", () => {
    expect(ChannelEnum.options).toEqual([
      "email",
      "sms",
      "webhook",
      "ha_event",
      "scheduler",
      "rule_engine",
      "watcher",
      "vision",
    ]);
    expect(ActorType.options).toEqual(["user", "system", "integration"]);
    expect(Sensitivity.options).toEqual(["low", "med", "high"]);
    expect(ExecutionMode.options).toEqual(["fast", "task", "gated", "sandbox"]);
    expect(RiskLevel.options).toEqual(["low", "medium", "high", "critical"]);
    expect(GateType.options).toEqual(["approval", "dryrun", "scope_check"]);
    expect(TaskStatus.options).toEqual([
      "pending",
      "running",
      "paused",
      "succeeded",
      "failed",
      "canceled",
    ]);
    expect(StepStatus.options).toEqual(["pending", "running", "succeeded", "failed", "paused"]);
    expect(RetryStrategy.options).toEqual(["exponential", "fixed", "none"]);
    expect(ToolCallStatus.options).toEqual(["attempted", "succeeded", "failed", "unknown"]);
    expect(ResultStatus.options).toEqual(["succeeded", "failed"]);
    expect(PipelineStage.options).toEqual([
      "normalize",
      "route",
      "execute",
      "tool_call",
      "gate",
      "operator",
      "scheduler",
      "watcher",
      "rule",
    ]);
    expect(AuditOutcome.options).toEqual(["success", "failure", "suppressed", "info"]);
    expect(ApprovalStatus.options).toEqual(["pending", "approved", "denied", "expired"]);
    expect(AutonomyLevel.options).toEqual(["A0", "A1", "A2", "A3", "A4"]);
  });

  for (const name of CONTRACT_NAMES) {
    describe(name, () => {
      it("accepts a valid document and re-validates its own output", () => {
        const result = validateContract(name, VALID_EXAMPLES[name]());
        expect(result.problems).toEqual([]);
        expect(result.ok).toBe(true);
        if (result.ok) expect(validateContract(name, result.value).ok).toBe(true);
      });

      it("rejects an unknown key with a pointer to it", () => {
        const problems = problemsOf(name, { ...VALID_EXAMPLES[name](), surprise: 1 });
        expect(problems).toEqual([
          expect.objectContaining({ code: "extra_forbidden", path: "/surprise", actual: "1" }),
        ]);
      });

      it("never throws on values that are not objects", () => {
        for (const value of [null, "text", 42, [], true]) {
          const problems = problemsOf(name, value);
          // The whole document is "" (RFC 6901), as the IR reports it.
          expect(problems[0]).toMatchObject({ code: "model_type", path: "", expected: "object" });
        }
      });

      it("exports a strict JSON Schema that agrees with the model", () => {
        const ajv = new Ajv2020({ strict: false, validateFormats: false });
        const input = contractJsonSchema(name);
        expect(input.title).toBe(name);
        expect(input.additionalProperties).toBe(false);
        const check = ajv.compile(input);
        expect(check(VALID_EXAMPLES[name]())).toBe(true);
        expect(check({ ...VALID_EXAMPLES[name](), surprise: 1 })).toBe(false);
        const output = contractJsonSchema(name, { io: "output" });
        const properties = Object.keys(output.properties as object);
        expect(output.required).toEqual(properties);
        const parsed = validateContract(name, VALID_EXAMPLES[name]());
        if (parsed.ok) expect(ajv.compile(output)(parsed.value)).toBe(true);
      });
    });
  }

  it("exports the models' cross-field rules: the JSON Schema refuses what they refuse, and names what it cannot state", () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const agree = (
      name: Parameters<typeof contractJsonSchema>[0],
      value: Record<string, unknown>,
      valid: boolean,
    ) => {
      expect(validateContract(name, value).ok, JSON.stringify(value)).toBe(valid);
      expect(ajv.compile(contractJsonSchema(name))(value), JSON.stringify(value)).toBe(valid);
    };
    const decided = { by: "ana", at: AT, reason: "checked" };
    for (const status of ["approved", "denied"]) {
      agree("Approval", { ...approval(), status }, false);
      const { decision: _, ...withoutDecision } = approval();
      agree("Approval", { ...withoutDecision, status }, false);
      agree("Approval", { ...approval(), status, decision: { ...decided, at: null } }, false);
      agree("Approval", { ...approval(), status, decision: decided }, true);
    }
    agree("Approval", { ...approval(), decision: decided }, false);
    agree("Approval", { ...approval(), status: "expired" }, true);
    const exponential = { ...retryPolicy(), strategy: "exponential" };
    agree("RetryPolicy", { ...exponential, jitter: false }, false);
    agree("RetryPolicy", { ...exponential, jitter: true }, true);
    agree("RetryPolicy", { ...retryPolicy(), strategy: "fixed", jitter: false }, true);
    agree("Step", { ...step(), retry_policy: { ...exponential, jitter: false } }, false);
    // What JSON Schema cannot compare is said in $comment (the model still refuses it).
    expect(contractJsonSchema("RetryPolicy").$comment).toContain("max_delay_ms >= base_delay_ms");
    expect(contractJsonSchema("Step").$comment).toContain("attempt < max_attempts");
    expect(contractJsonSchema("Approval").$comment).toContain("expires_at > created_at");
    expect(JSON.stringify(contractJsonSchema("MessageEvent"))).toContain("IANA time zone");
  });

  it("reports every problem of a document at once, with JSON Pointers", () => {
    const event = messageEvent();
    const source = event.source as Record<string, unknown>;
    source.channel = "carrier-pigeon";
    source.extra = true;
    (event.context as Record<string, unknown>).timezone = "Mars/Olympus";
    (event.context as Record<string, unknown>).locale = "not a locale!";
    (event.correlation as Record<string, unknown>).trace_id = "nope";
    event.occurred_at = "2026-01-01T12:00:00";
    delete event.actor;
    const problems = problemsOf("MessageEvent", event);
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p]));
    expect(Object.keys(byPath).sort()).toEqual(
      [
        "/actor",
        "/context/locale",
        "/context/timezone",
        "/correlation/trace_id",
        "/occurred_at",
        "/source/channel",
        "/source/extra",
      ].sort(),
    );
    expect(byPath["/actor"]).toMatchObject({
      code: "missing",
      actual: "missing",
      expected: "object",
    });
    expect(byPath["/source/channel"]).toMatchObject({
      code: "literal_error",
      actual: '"carrier-pigeon"',
    });
    expect(byPath["/source/channel"]?.expected).toContain('"ha_event"');
    expect(byPath["/context/timezone"]).toMatchObject({
      code: "value_error",
      expected: "IANA time zone name",
    });
    expect(byPath["/occurred_at"]?.code).toBe("string_pattern_mismatch");
    for (const problem of problems) {
      expect(problem.hint.length).toBeGreaterThan(0);
      expect(problem.message.length).toBeGreaterThan(0);
    }
  });

  it("fills defaults for optional fields and keeps required ones required", () => {
    const minimal = messageEvent();
    minimal.content = {};
    minimal.source = { channel: "sms", connector_id: "twilio" };
    const result = validateContract("MessageEvent", minimal);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.value.content).toEqual({
        text: null,
        structured: {},
        attachment_refs: [],
        links: [],
      });
      expect(result.value.source.thread_id).toBeNull();
    }
  });

  it("refuses a contract version of another major", () => {
    const problems = problemsOf("MessageEvent", { ...messageEvent(), schema_version: "2.0" });
    expect(problems).toEqual([expect.objectContaining({ path: "/schema_version" })]);
    expect(validateContract("MessageEvent", { ...messageEvent(), schema_version: "1.3" }).ok).toBe(
      true,
    );
  });

  it("requires the idempotency key and a lowercase sha256 on tool calls", () => {
    const missing = toolCall();
    delete missing.idempotency_key;
    expect(problemsOf("ToolCall", missing)).toEqual([
      expect.objectContaining({ code: "missing", path: "/idempotency_key" }),
    ]);
    expect(problemsOf("ToolCall", { ...toolCall(), idempotency_key: "" })[0]?.path).toBe(
      "/idempotency_key",
    );
    expect(problemsOf("ToolCall", { ...toolCall(), request_hash: "A".repeat(64) })[0]?.path).toBe(
      "/request_hash",
    );
  });

  it("checks retry policies across fields", () => {
    const noJitter = problemsOf("RetryPolicy", { ...retryPolicy(), jitter: false });
    expect(noJitter).toEqual([
      expect.objectContaining({ code: "value_error", path: "/jitter", expected: "true" }),
    ]);
    const inverted = problemsOf("RetryPolicy", {
      strategy: "fixed",
      base_delay_ms: 500,
      max_delay_ms: 100,
      jitter: false,
    });
    expect(inverted).toEqual([
      expect.objectContaining({ path: "/max_delay_ms", expected: ">= 500 (base_delay_ms)" }),
    ]);
    expect(problemsOf("RetryPolicy", { ...retryPolicy(), base_delay_ms: -1 })[0]).toMatchObject({
      code: "greater_than_equal",
      path: "/base_delay_ms",
    });
  });

  it("keeps a step's attempt below max_attempts", () => {
    expect(problemsOf("Step", { ...step(), attempt: 3, max_attempts: 3 })).toEqual([
      expect.objectContaining({ path: "/attempt" }),
    ]);
    expect(
      problemsOf("Step", { ...step(), retry_policy: { ...retryPolicy(), jitter: false } }),
    ).toEqual([expect.objectContaining({ path: "/retry_policy/jitter" })]);
  });

  it("keeps approvals coherent", () => {
    expect(problemsOf("Approval", { ...approval(), status: "approved" })).toEqual([
      expect.objectContaining({ path: "/decision" }),
    ]);
    expect(problemsOf("Approval", { ...approval(), expires_at: AT })).toEqual([
      expect.objectContaining({ path: "/expires_at" }),
    ]);
    const decided = {
      ...approval(),
      status: "approved",
      decision: { by: "ana", at: AT, reason: "ok" },
      required_capability: "deploy:approve",
    };
    expect(validateContract("Approval", decided).ok).toBe(true);
  });

  it("escapes JSON Pointer segments per RFC 6901", () => {
    expect(toJsonPointer(["a/b", "c~d", 0])).toBe("/a~1b/c~0d/0");
    expect(toJsonPointer([])).toBe("/");
    const problems = problemsOf("GateSpec", {
      gate_type: "approval",
      reason: "r",
      expires_in_seconds: 0,
      "we/ird~": 1,
    });
    expect(problems.map((p) => p.path).sort()).toEqual(["/expires_in_seconds", "/we~1ird~0"]);
  });
});

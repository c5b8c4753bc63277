import { describe, expect, it } from "vitest";
import { timelineLine } from "../../src/cli/commands/runtime-cli.js";
import type { AuditEvent } from "../../src/runtime/index.js";

const event = (taskId: string): AuditEvent => ({
  audit_id: "01a20000-0000-7000-8000-000000000001",
  timestamp: "2026-05-01T10:00:00.000Z",
  trace_id: "01a20000-0000-7000-8000-000000000002",
  stage: "execute",
  refs: { event_id: null, task_id: taskId, step_id: null, tool_call_id: null, approval_id: null },
  type: "task.started",
  summary: "run started",
  outcome: "info",
  latency_ms: null,
  tool_name: null,
  connector_id: null,
  risk_level: null,
  autonomy_level: null,
  payload_ref: null,
});

describe("keel audit <trace> timeline", () => {
  it("tells apart ids made in the same minute (UUIDv7s share their leading timestamp)", () => {
    const a = "019a7c31-52f0-7b21-8d6e-0a1b2c3d4e5f";
    const b = "019a7c31-52f0-7c99-9f00-ffeeddccbbaa";
    expect(timelineLine(event(a))).toContain(`task=${a}`);
    expect(timelineLine(event(a))).not.toBe(timelineLine(event(b)));
  });
});

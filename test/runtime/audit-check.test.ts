import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { canonicalJson, newId } from "../../src/core/index.js";
import { canonicalAuditJson } from "../../src/runtime/audit/audit-canonical.js";
import { checkAuditEvent, isUuid } from "../../src/runtime/audit/audit-event-check.js";
import {
  AuditEvent,
  type AuditEventInput,
  AuditRefs,
} from "../../src/runtime/contracts/audit-event.js";
import { validateContract } from "../../src/runtime/contracts/index.js";
import { seededRandom } from "../../src/runtime/index.js";

function valid(): AuditEventInput {
  return {
    audit_id: newId(),
    timestamp: "2026-05-01T10:00:00.000Z",
    trace_id: newId(),
    stage: "tool_call",
    refs: { tool_call_id: newId(), task_id: null },
    type: "tool_call.succeeded",
    summary: "ops.deploy apply succeeded",
    outcome: "success",
    latency_ms: 12,
    tool_name: "ops.deploy",
    connector_id: "ops",
    risk_level: "high",
    autonomy_level: "A2",
    payload_ref: null,
  };
}

/** One field changed to something the contract may or may not accept. */
const MUTATIONS: [string, (e: Record<string, unknown>) => void][] = [
  ["audit_id not a uuid", (e) => (e.audit_id = "abc")],
  ["audit_id nil uuid", (e) => (e.audit_id = "00000000-0000-0000-0000-000000000000")],
  ["audit_id upper case", (e) => (e.audit_id = String(e.audit_id).toUpperCase())],
  ["trace_id empty", (e) => (e.trace_id = "")],
  ["trace_id number", (e) => (e.trace_id = 7)],
  ["timestamp naive", (e) => (e.timestamp = "2026-05-01T10:00:00")],
  ["timestamp offset", (e) => (e.timestamp = "2026-05-01T10:00:00+02:00")],
  ["timestamp bad day", (e) => (e.timestamp = "2026-02-30T10:00:00.000Z")],
  ["stage unknown", (e) => (e.stage = "tool-call")],
  ["stage missing", (e) => delete e.stage],
  ["refs extra key", (e) => (e.refs = { run_id: newId() })],
  ["refs not uuid", (e) => (e.refs = { task_id: "t1" })],
  ["refs null", (e) => (e.refs = null)],
  ["refs array", (e) => (e.refs = [])],
  ["refs empty", (e) => (e.refs = {})],
  ["type undotted", (e) => (e.type = "succeeded")],
  ["type upper", (e) => (e.type = "Tool.succeeded")],
  ["type trailing dot", (e) => (e.type = "tool.")],
  ["type empty", (e) => (e.type = "")],
  ["type number", (e) => (e.type = 3)],
  ["type another valid", (e) => (e.type = "gate.approved")],
  ["summary empty", (e) => (e.summary = "")],
  ["summary missing", (e) => delete e.summary],
  ["outcome unknown", (e) => (e.outcome = "ok")],
  ["latency negative", (e) => (e.latency_ms = -1)],
  ["latency fraction", (e) => (e.latency_ms = 1.5)],
  ["latency unsafe", (e) => (e.latency_ms = 2 ** 60)],
  ["latency string", (e) => (e.latency_ms = "3")],
  ["latency absent", (e) => delete e.latency_ms],
  ["tool_name number", (e) => (e.tool_name = 3)],
  ["tool_name empty", (e) => (e.tool_name = "")],
  ["risk unknown", (e) => (e.risk_level = "severe")],
  ["autonomy lower case", (e) => (e.autonomy_level = "a2")],
  ["autonomy absent", (e) => delete e.autonomy_level],
  ["payload_ref number", (e) => (e.payload_ref = 1)],
  ["extra key", (e) => (e.extra = true)],
  ["extra key undefined", (e) => (e.extra = undefined)],
];

describe("the audit writer's fast event check", () => {
  it("accepts a valid event and fills it exactly as the contract does", () => {
    const event = valid();
    const contract = validateContract("AuditEvent", event);
    expect(contract.ok).toBe(true);
    expect(checkAuditEvent(event)).toEqual(contract.ok ? contract.value : null);
  });

  it.each(MUTATIONS)("agrees with the contract: %s", (_label, mutate) => {
    const event = valid() as unknown as Record<string, unknown>;
    mutate(event);
    const contract = validateContract("AuditEvent", event);
    const fast = checkAuditEvent(event as unknown as AuditEventInput);
    // Never admits what the contract refuses; what it admits is the contract's value.
    if (!contract.ok) expect(fast).toBeNull();
    else expect(fast).toEqual(contract.value);
  });

  it("never admits what the contract refuses, over 3,000 random mutations", () => {
    const random = seededRandom(7);
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const event = valid() as unknown as Record<string, unknown>;
      const count = 1 + Math.floor(random() * 3);
      for (let m = 0; m < count; m++) {
        MUTATIONS[Math.floor(random() * MUTATIONS.length)]?.[1](event);
      }
      const contract = validateContract("AuditEvent", event);
      const fast = checkAuditEvent(event as unknown as AuditEventInput);
      if (!contract.ok) {
        refused += 1;
        expect(fast).toBeNull();
      } else expect(fast).toEqual(contract.value);
    }
    expect(refused).toBeGreaterThan(2000);
  });
});

describe("the audit event's canonical JSON, written out", () => {
  it("is byte-identical to canonicalJson over varied events", () => {
    const random = seededRandom(11);
    const pick = <T>(values: readonly T[]): T =>
      values[Math.floor(random() * values.length)] ?? (values[0] as T);
    for (let i = 0; i < 500; i++) {
      const event = {
        ...(checkAuditEvent(valid()) ?? expect.unreachable()),
        summary: pick([
          "plain",
          'quote " and \\ back',
          "ünïcødé ✓",
          "line\nbreak",
          "\u2028",
          "tab\tand \u001f",
          "\u007f del",
          "lone \ud800 surrogate",
          "pair \ud83d\ude00",
        ]),
        connector_id: pick([null, "ops", 'c"x', "\udfff"]),
        latency_ms: pick([null, 0, 17, 2 ** 40]),
        tool_name: pick([null, "", "ops.deploy"]),
        risk_level: pick([null, "low", "critical"] as const),
        autonomy_level: pick([null, "A0", "A4"] as const),
        refs: {
          event_id: pick([null, newId()]),
          task_id: pick([null, newId()]),
          step_id: pick([null, newId()]),
          tool_call_id: pick([null, newId()]),
          approval_id: pick([null, newId()]),
        },
      };
      expect(canonicalAuditJson(event)).toBe(canonicalJson(event));
    }
  });

  it("covers every field of the contract", () => {
    const event = checkAuditEvent(valid()) ?? expect.unreachable();
    const keys = (value: object): string[] =>
      Object.entries(value).flatMap(([key, inner]) =>
        inner !== null && typeof inner === "object" ? [key, ...keys(inner)] : [key],
      );
    const parsed = JSON.parse(canonicalAuditJson(event)) as object;
    const contract = [...Object.keys(AuditEvent.shape), ...Object.keys(AuditRefs.shape)];
    expect(keys(parsed).sort()).toEqual(contract.sort());
  });
});

describe("the event check's UUID test, written out", () => {
  it("agrees with zod's UUID pattern on ids mutated at every position", () => {
    const pattern = z.regexes.uuid();
    const ids = [
      newId(),
      randomUUID(),
      randomUUID().toUpperCase(),
      "00000000-0000-0000-0000-000000000000",
      "ffffffff-ffff-ffff-ffff-ffffffffffff",
      "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
    ];
    const chars = [
      "0",
      "1",
      "7",
      "8",
      "9",
      "a",
      "b",
      "c",
      "f",
      "A",
      "B",
      "F",
      "g",
      "G",
      "-",
      " ",
      "é",
      "\n",
    ];
    const candidates: unknown[] = [undefined, null, 7, "", "abc"];
    for (const id of ids) {
      candidates.push(id, `${id}0`, id.slice(1), `${id}\n`);
      for (let i = 0; i < id.length; i++) {
        for (const char of chars) candidates.push(id.slice(0, i) + char + id.slice(i + 1));
      }
    }
    let admitted = 0;
    for (const candidate of candidates) {
      const expected = typeof candidate === "string" && pattern.test(candidate);
      expect([candidate, isUuid(candidate)]).toEqual([candidate, expected]);
      if (expected) admitted += 1;
    }
    expect(admitted).toBeGreaterThan(500);
  });
});

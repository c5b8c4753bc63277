import { describe, expect, it } from "vitest";
import { isKeelError } from "../../src/core/index.js";
import {
  ApprovalStatus,
  StepStatus,
  TaskStatus,
  ToolCallStatus,
} from "../../src/runtime/contracts/index.js";
import {
  allowedTransitions,
  assertTransition,
  canTransition,
  isTerminal,
  type StatusKind,
  TRANSITIONS,
} from "../../src/runtime/policy/index.js";

const STATUSES: Record<StatusKind, readonly string[]> = {
  task: TaskStatus.options,
  step: StepStatus.options,
  tool_call: ToolCallStatus.options,
  approval: ApprovalStatus.options,
};

function refusal(kind: StatusKind, from: string, to: string): unknown {
  try {
    // The tables are keyed by the enums, so any string pair can be probed here.
    assertTransition(kind, from as never, to as never);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("status transitions", () => {
  for (const kind of Object.keys(STATUSES) as StatusKind[]) {
    it(`has a ${kind} table over exactly the seed's statuses`, () => {
      expect(Object.keys(TRANSITIONS[kind]).sort()).toEqual([...STATUSES[kind]].sort());
      for (const targets of Object.values(TRANSITIONS[kind]) as string[][]) {
        for (const target of targets) expect(STATUSES[kind]).toContain(target);
      }
    });

    it(`refuses every ${kind} transition the table does not list, and only those`, () => {
      for (const from of STATUSES[kind]) {
        for (const to of STATUSES[kind]) {
          const listed = (TRANSITIONS[kind] as Record<string, readonly string[]>)[from]?.includes(
            to,
          );
          expect(canTransition(kind, from as never, to as never)).toBe(listed);
          const error = refusal(kind, from, to);
          if (listed) {
            expect(error).toBeUndefined();
          } else {
            expect(isKeelError(error) && error.code).toBe("ILLEGAL_TRANSITION");
            if (isKeelError(error)) expect(error.details).toMatchObject({ kind, from, to });
          }
        }
      }
    });

    it(`never lets a ${kind} stay in place or leave a terminal status`, () => {
      for (const status of STATUSES[kind]) {
        expect(canTransition(kind, status as never, status as never)).toBe(false);
        if (isTerminal(kind, status as never)) {
          expect(allowedTransitions(kind, status as never)).toEqual([]);
        }
      }
    });
  }

  it("knows which statuses are final", () => {
    expect(TaskStatus.options.filter((s) => isTerminal("task", s))).toEqual([
      "succeeded",
      "failed",
      "canceled",
    ]);
    expect(StepStatus.options.filter((s) => isTerminal("step", s))).toEqual([
      "succeeded",
      "failed",
    ]);
    expect(ToolCallStatus.options.filter((s) => isTerminal("tool_call", s))).toEqual([
      "succeeded",
      "failed",
    ]);
    expect(ApprovalStatus.options.filter((s) => isTerminal("approval", s))).toEqual([
      "approved",
      "denied",
      "expired",
    ]);
  });

  it("refuses deciding an approval twice or after expiry, saying what is final", () => {
    expect(() => assertTransition("approval", "approved", "denied", "a-1")).toThrow(
      /Approval a-1 cannot move from "approved" to "denied". "approved" is final/,
    );
    expect(() => assertTransition("approval", "expired", "approved")).toThrow(/final/);
    expect(() => assertTransition("approval", "pending", "approved")).not.toThrow();
  });

  it("never lets a tool call become succeeded out of nothing, nor unknown once resolved", () => {
    expect(canTransition("tool_call", "attempted", "unknown")).toBe(true);
    expect(canTransition("tool_call", "unknown", "succeeded")).toBe(true);
    expect(canTransition("tool_call", "succeeded", "unknown")).toBe(false);
    expect(canTransition("tool_call", "failed", "succeeded")).toBe(false);
    expect(() => assertTransition("tool_call", "succeeded", "attempted")).toThrow(
      /Tool call cannot move/,
    );
  });

  it("names the legal targets in the hint", () => {
    const error = refusal("task", "pending", "succeeded");
    expect(isKeelError(error) && error.hint).toBe(
      'From "pending" it may move only to "running", "canceled", "failed".',
    );
  });
});

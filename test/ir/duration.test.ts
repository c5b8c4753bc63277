import { describe, expect, it } from "vitest";
import { MemorySaver } from "../../src/index.js";
import {
  compileDocument,
  durationSeconds,
  IrValidationError,
  timeoutMillis,
  validate,
} from "../../src/ir/index.js";

const DAY = 86400;
const THEN = "then";

describe("interrupt timeouts as Pydantic reads a timedelta", () => {
  it("reads ISO 8601 with years (365 days) and months (30 days), clock and day forms", () => {
    const cases: [string, number][] = [
      ["PT15M", 900],
      ["P1Y", 365 * DAY],
      ["P1M", 30 * DAY],
      ["P1Y2M3W4DT5H6M7.5S", 365 * DAY + 60 * DAY + 21 * DAY + 4 * DAY + 5 * 3600 + 6 * 60 + 7.5],
      ["PT1.5H", 5400],
      ["+PT1M", 60],
      ["00:30:00", 1800],
      ["01:02", 3720],
      ["23:59:59.5", 86399.5],
      ["2 days", 2 * DAY],
      ["1 day, 01:00:00", DAY + 3600],
      ["3d,00:00:01", 3 * DAY + 1],
      ["1D 12:00", DAY + 12 * 3600],
    ];
    for (const [text, seconds] of cases)
      expect([text, durationSeconds(text)]).toEqual([text, seconds]);
  });

  it("refuses negative durations and anything else, in validation and at run time", () => {
    for (const bad of [
      "-PT1M",
      "-00:01:00",
      "P",
      "PT",
      "P1H",
      "24:00:00",
      "soon",
      "1 week",
      "30",
    ]) {
      expect([bad, durationSeconds(bad)]).toEqual([bad, null]);
      const problems = validate({
        ir_version: "1.0.0",
        id: "g",
        nodes: [{ id: "a", kind: "echo" }],
        rules: [{ id: "r", [THEN]: [{ kind: "interrupt", prompt: "p", timeout: bad }] }],
      });
      expect(problems).toMatchObject([
        {
          code: "string_pattern_mismatch",
          path: "/rules/0/then/0/timeout",
          expected: expect.stringContaining("P1M = 30 days"),
        },
      ]);
      expect(() => timeoutMillis(bad)).toThrow(IrValidationError);
    }
    expect(() => timeoutMillis(-1)).toThrow(expect.objectContaining({ code: "IR_INVALID" }));
    expect(timeoutMillis(null)).toBeNull();
    expect(timeoutMillis(1.5)).toBe(1500);
  });

  it("gives a P1M wait a deadline 30 days on (it used to have none and never timed out)", async () => {
    const doc = {
      ir_version: "1.0.0",
      id: "g",
      nodes: [
        { id: "a", kind: "echo" },
        { id: "b", kind: "halt" },
      ],
      rules: [
        {
          id: "ask",
          when: "(node-id a)",
          [THEN]: [{ kind: "interrupt", prompt: "?", timeout: "P1M" }],
        },
      ],
    };
    const { graph } = await compileDocument(doc, { checkpointer: new MemorySaver() });
    const before = Date.now();
    const out = await graph.invoke({}, { configurable: { thread_id: "t" } });
    const deadline = out.__interrupt__[0].value.deadline_at as number;
    expect(deadline - before).toBeGreaterThanOrEqual(30 * DAY * 1000);
    expect(deadline - Date.now()).toBeLessThanOrEqual(30 * DAY * 1000);
  });
});

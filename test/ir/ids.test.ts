import { describe, expect, it } from "vitest";
import { KeelError } from "../../src/core/index.js";
import {
  autogenNodeIds,
  autogenPackIds,
  autogenRuleIds,
  isValidSlug,
  newCheckpointId,
  newRunId,
  slug,
  validateNodeId,
  validatePackId,
  validateRuleId,
} from "../../src/ir/index.js";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("run and checkpoint ids", () => {
  it("are UUIDv7 strings that sort by creation", () => {
    const ids = [newRunId(), newCheckpointId(), newRunId(), newCheckpointId()];
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect(new Set(ids).size).toBe(4);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe("slug validators", () => {
  it("accept the seed's slug form", () => {
    for (const id of [
      "node_a",
      "rule.escalate",
      "pack.bosun.routing",
      "0",
      "a-b_c.d",
      "a".repeat(128),
    ]) {
      expect(isValidSlug(id)).toBe(true);
      expect(validateNodeId(id)).toBe(id);
    }
  });

  it("refuse anything else with IR_INVALID_ID and a suggestion", () => {
    const cases: [string, RegExp][] = [
      ["", /empty/],
      ["Node", /start with a lowercase/],
      ["-a", /start with a lowercase/],
      ["a b", /contains " "/],
      ["rule:x", /contains ":"/],
      ["a".repeat(129), /129 characters/],
      ["é", /start with a lowercase/],
    ];
    for (const [id, reason] of cases) {
      expect(isValidSlug(id)).toBe(false);
      for (const check of [validateNodeId, validateRuleId, validatePackId]) {
        try {
          check(id);
          expect.unreachable();
        } catch (error) {
          expect(error).toBeInstanceOf(KeelError);
          expect((error as KeelError).code).toBe("IR_INVALID_ID");
          expect((error as KeelError).message).toMatch(reason);
        }
      }
    }
    expect(() => validateRuleId("Rule X")).toThrow(/Use something like "rule-x"/);
  });
});

describe("slug()", () => {
  it("lowercases and collapses everything else to single dashes", () => {
    expect(slug("Escalate: Severity >= 4!")).toBe("escalate-severity-4");
    expect(slug("  Fetch   the_URL  ")).toBe("fetch-the-url");
    expect(slug("Café ☕ Order")).toBe("caf-order");
    expect(slug("!!!")).toBe("");
  });

  it("is at most 24 characters and never ends in a dash", () => {
    const long = slug("The quick brown fox jumps over the lazy dog");
    expect(long.length).toBeLessThanOrEqual(24);
    expect(long).toBe("the-quick-brown-fox-jump");
    expect(slug("abcdefghijklmnopqrstuvw xyz")).toBe("abcdefghijklmnopqrstuvw");
    for (const text of ["a ".repeat(30), "x".repeat(40), "Hello, World"]) {
      expect(isValidSlug(slug(text))).toBe(true);
    }
  });
});

describe("id autogeneration", () => {
  it("fills missing ids from names, suffixing collisions -2, -3", () => {
    const items = [{ name: "Fetch" }, { name: "fetch" }, { name: "FETCH!" }, { name: "Parse" }];
    expect(autogenNodeIds(items).map((item) => item.id)).toEqual([
      "fetch",
      "fetch-2",
      "fetch-3",
      "parse",
    ]);
  });

  it("keeps explicit ids and steers generated ones around them", () => {
    const items = [
      { name: "Review" },
      { id: "review", name: "x" },
      { id: "review-2" },
      { name: "review" },
    ];
    expect(autogenRuleIds(items).map((item) => item.id)).toEqual([
      "review-3",
      "review",
      "review-2",
      "review-4",
    ]);
  });

  it("falls back to item-N when a name has no letters or digits, and copies items", () => {
    const items = [{ name: "???" }, {}, { id: null, name: null }];
    const result = autogenPackIds(items);
    expect(result.map((item) => item.id)).toEqual(["item-2", "item-3", "item-4"]);
    expect(items[0]).toEqual({ name: "???" });
    expect(autogenNodeIds([{}]).map((item) => item.id)).toEqual(["item-2"]);
  });

  it("makes an id from the first field when there is no name, as Stargraph does", () => {
    const items: { id?: string; name?: string; label: string }[] = [{ label: "Pretty Label" }];
    expect(autogenNodeIds(items).map((item) => item.id)).toEqual(["pretty-label"]);
  });
});

import { describe, expect, it } from "vitest";
import {
  checkIntegrity,
  type IntegrityRecord,
  jsonPointerOf,
  type MemoryModelName,
  routeEvent,
  validateIntent,
  validateMemoryModel,
  validateTransition,
} from "../../src/memory/index.js";
import { referenceCases } from "./reference.js";

const cases = referenceCases("validation_v3.2.1.json");

describe("validation_v3.2.1.json, mapped onto Keel's zod models", () => {
  it("has every case", () => {
    expect(cases.length).toBe(85);
  });

  for (const c of cases) {
    it(`${c.id} (${c.fn})`, () => {
      const expected = c.expected;
      if (c.fn.startsWith("validate:")) {
        const model = c.fn.slice("validate:".length) as MemoryModelName;
        const result = validateMemoryModel(model, c.input);
        expect(result.ok).toBe(expected.valid);
        if (!result.ok) {
          const errors = expected.errors as { loc: string[]; type: string }[];
          // The reference reports a semantic event's context errors at the context model's
          // root (`target`); Keel gives the full path into the event (`/context/target`).
          const prefix = model === "MemoryEvent" && c.input.context ? ["context"] : [];
          const wanted = errors.map((e) => {
            const inContext = prefix.length > 0 && !((e.loc[0] ?? "") in c.input);
            return { path: jsonPointerOf(inContext ? [...prefix, ...e.loc] : e.loc), code: e.type };
          });
          expect(result.problems.map((p) => ({ path: p.path, code: p.code }))).toEqual(wanted);
          for (const problem of result.problems) {
            expect(problem.message.length).toBeGreaterThan(0);
            expect(problem.hint.length).toBeGreaterThan(0);
          }
          return;
        }
        const value = result.value as Record<string, unknown>;
        for (const key of ["title", "target", "rationale", "status", "content", "kind"]) {
          if (key in expected) expect(value[key]).toBe(expected[key]);
        }
        const type = (expected.context as { type?: string } | undefined)?.type;
        if (type === "DecisionContent")
          expect(value.context).toMatchObject({ status: "active", namespace: "default" });
        if (type === "dict") expect(value.context).toEqual(c.input.context);
        return;
      }
      if (c.fn === "ResolutionEngine.validate_intent") {
        const input = c.input as {
          resolution_type: "supersede" | "deprecate" | "abort";
          target_decision_ids: string[];
          conflicts: string[];
        };
        expect(validateIntent(input, input.conflicts)).toBe(expected.valid);
        return;
      }
      if (c.fn === "MemoryRouter.route") {
        const input = c.input as {
          kind: string;
          active_conflicts_same_target_namespace: string[];
          intent: {
            resolution_type: "supersede" | "deprecate" | "abort";
            target_decision_ids: string[];
          } | null;
        };
        const decision = routeEvent({
          kind: input.kind,
          target: "database",
          conflicts: input.active_conflicts_same_target_namespace,
          intent: input.intent,
        });
        expect(decision).toMatchObject(expected);
        return;
      }
      if (c.fn === "TransitionValidator.validate_update") {
        const input = c.input as { old: Record<string, unknown>; new: Record<string, unknown> };
        const check = validateTransition(input.old, input.new);
        expect(check.allowed).toBe(expected.allowed);
        if (!check.allowed) expect(check.message).toBe(expected.message);
        return;
      }
      if (c.fn.startsWith("IntegrityChecker")) {
        const check = checkIntegrity(
          (c.input as { decisions: Record<string, IntegrityRecord> }).decisions,
        );
        expect(check.valid).toBe(expected.valid);
        if (!check.valid) {
          expect(check.invariant).toBe(expected.invariant);
          expect(check.message).toBe(expected.message);
        }
        return;
      }
      throw new Error(`no mapping for ${c.fn}`);
    });
  }
});

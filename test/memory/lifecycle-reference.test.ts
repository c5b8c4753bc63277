import { describe, expect, it } from "vitest";
import {
  applyProposalDecay,
  calculateTemporalSignals,
  checkProposalLifecycle,
  estimateRemovalCost,
  estimateUtility,
  evaluateEpisodicDecay,
  evaluateHypothesis,
  evaluateNormativeAuthority,
  evaluateSemanticDecay,
  generateHypotheses,
  type HypothesisContext,
  type ObservationStats,
  processIntervention,
  promoteStream,
  type ReflectionEvent,
  shouldAutoAccept,
  toMs,
  updateVitality,
} from "../../src/memory/index.js";
import { referenceCases } from "./reference.js";

type Loose = Record<string, unknown>;
const DAY = 86_400_000;

/** Floats are recorded rounded to 10 decimals; times compare as instants. */
function expectMatch(actual: Loose, expected: Loose): void {
  for (const [key, want] of Object.entries(expected)) {
    const got = actual[key];
    if (typeof want === "number") expect(got, key).toBeCloseTo(want, 9);
    else if (typeof want === "string" && /^\d{4}-\d{2}-\d{2}T/.test(want)) {
      expect(toMs(got as string), key).toBe(toMs(want));
    } else expect(got, key).toEqual(want);
  }
}

describe("lifecycle_v3.2.1.json", () => {
  const cases = referenceCases("lifecycle_v3.2.1.json");
  it("has every case", () => expect(cases.length).toBe(58));
  for (const c of cases) {
    it(`${c.id} (${c.fn})`, () => {
      const input = c.input as Loose;
      switch (c.fn) {
        case "calculate_temporal_signals": {
          const signals = calculateTemporalSignals(
            input.stream as { frequency: number },
            input.reinforcement_dates as string[],
            input.now as string,
            input.observation_window_days as number,
          );
          expectMatch(signals as unknown as Loose, c.expected);
          return;
        }
        case "update_vitality":
        case "update_vitality x2": {
          const now = toMs("2026-03-01T12:00:00");
          const lastSeen = new Date(
            now - (input.days_since_last_seen as number) * DAY,
          ).toISOString();
          let stream = { confidence: input.confidence as number, last_seen: lastSeen };
          for (let i = 0; i < ((input.calls as number | undefined) ?? 1); i++) {
            stream = updateVitality(stream, now);
          }
          expectMatch(stream, c.expected);
          return;
        }
        case "estimate_removal_cost":
          expectMatch({ estimated_removal_cost: estimateRemovalCost(input) }, c.expected);
          return;
        case "estimate_utility":
          expectMatch({ estimated_utility: estimateUtility(input) }, c.expected);
          return;
        case "promote_stream":
          expectMatch(promoteStream(input), c.expected);
          return;
        case "evaluate_normative_authority":
          expect(evaluateNormativeAuthority(input)).toBe(c.expected.kind);
          return;
        case "process_intervention":
          expectMatch(processIntervention(input, input.now as string), c.expected);
          return;
        case "DecayEngine.evaluate_semantic": {
          const record = input.record as Loose & { fid: string };
          const result = evaluateSemanticDecay(
            [{ ...(record as object), id: record.fid } as never],
            input.now as string,
          );
          expect(
            result.map((r) => ({
              fid: r.id,
              new_confidence: r.newConfidence,
              should_forget: r.shouldForget,
            })),
          ).toEqual(c.expected.result);
          return;
        }
        case "DecayEngine.evaluate": {
          const result = evaluateEpisodicDecay(input.events as never, input.now as string, {
            ttlDays: input.ttl_days as number,
          });
          expect({
            to_archive: result.toArchive,
            to_prune: result.toPrune,
            retained_count: result.retainedCount,
          }).toEqual(c.expected);
          return;
        }
        default:
          throw new Error(`no mapping for ${c.fn}`);
      }
    });
  }
});

describe("proposals_v2.7.1.json", () => {
  const cases = referenceCases("proposals_v2.7.1.json");
  it("has every case", () => expect(cases.length).toBe(20));
  for (const c of cases) {
    it(`${c.id} (${c.fn})`, () => {
      const input = c.input as Loose;
      switch (c.fn) {
        case "evaluate_hypothesis": {
          const update = evaluateHypothesis(
            input.context as HypothesisContext,
            input.stats as ObservationStats,
          );
          const calls = update === null ? [] : [{ fid: "prop.md", updates: update }];
          expect(calls).toEqual(c.expected.update_calls);
          return;
        }
        case "apply_decay":
          expect([
            { fid: "prop.md", updates: applyProposalDecay(input.confidence as number) },
          ]).toEqual(c.expected.update_calls);
          return;
        case "check_proposal_lifecycle": {
          const update = checkProposalLifecycle(
            input.context as HypothesisContext,
            input.now as string,
          );
          expect(update === null ? [] : [{ fid: "prop.md", updates: update }]).toEqual(
            c.expected.update_calls,
          );
          expect(shouldAutoAccept(input.stored_context_after as HypothesisContext)).toBe(
            c.expected.accept_proposal_called,
          );
          return;
        }
        case "run_cycle": {
          const created = generateHypotheses(
            input.events as ReflectionEvent[],
            new Set(input.active_decision_targets as string[]),
            [],
          );
          const expected = c.expected.proposals_created as Loose[];
          expect(created.length).toBe(expected.length);
          for (const [i, proposal] of created.entries()) {
            expect(proposal).toMatchObject(expected[i] as Loose);
          }
          return;
        }
        default:
          throw new Error(`no mapping for ${c.fn}`);
      }
    });
  }
});

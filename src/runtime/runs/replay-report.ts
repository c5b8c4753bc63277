import { hashValue } from "../../core/index.js";
import type { RoutingDecision } from "../contracts/routing-decision.js";
import type { StepsTable } from "../db/tables.js";

/** One transition of a run, as compared by a replay: the routing, then each step in order. */
export interface Transition {
  /** `route`, or `<node>#<visit>`. */
  at: string;
  /**
   * What happened there, reduced to what must match: status, output hash, calls made, and the
   * gate each gated call met (`<n>=allow|preview|confirm:<approval decision>|block`).
   */
  summary: Record<string, unknown>;
}

/** One row of the transition-by-transition diff. */
export interface TransitionDiff {
  index: number;
  at: string;
  same: boolean;
  original: Transition["summary"] | null;
  replay: Transition["summary"] | null;
}

/** What a replay came to. */
export interface ReplayReport {
  originalRunId: string;
  replayRunId: string;
  mode: "strict" | "counterfactual";
  /** True when every transition matched. */
  identical: boolean;
  firstDivergence: TransitionDiff | null;
  diff: TransitionDiff[];
  /** The error that stopped the replay, if any (a missing call, a divergence, a failure). */
  stoppedBy: { code: string; message: string } | null;
}

/** The routing part a replay compares (not the time it was decided). */
export function routeTransition(decision: RoutingDecision | null): Transition {
  return {
    at: "route",
    summary:
      decision === null
        ? { routed: false }
        : {
            execution_mode: decision.execution_mode,
            matched_fastpath: decision.match.matched_fastpath,
            matched_rule_ids: decision.match.matched_rule_ids,
            intent: decision.intent,
            risk_level: decision.risk_level,
            required_scopes: decision.required_scopes,
            gates: decision.gates.map((gate) => gate.gate_type),
          },
  };
}

/**
 * A run's steps as transitions, with the calls each made (`<tool>@<request hash>`) and the gate
 * decision each gated call met (`allow`, `preview`, `confirm:<approval decision>`, `block`), both
 * by the call's place in the step. A gate that decides otherwise in a counterfactual (another
 * autonomy or risk) is a divergence at the step that made the call, even when the call itself is
 * the same.
 */
export function stepTransitions(
  steps: readonly StepsTable[],
  calls: Map<string, string>,
  gates: Map<string, string>,
): Transition[] {
  return steps.map((step) => {
    const at = `${step.name}#${step.visit}`;
    return {
      at,
      summary: {
        status: step.status,
        output:
          step.output_json === null ? null : hashValue(JSON.parse(step.output_json)).slice(0, 16),
        calls: placedIn(at, calls),
        gates: placedIn(at, gates),
      },
    };
  });
}

/** The entries of `byPlace` made in step `at`, as `<n>=<value>`, sorted. */
function placedIn(at: string, byPlace: Map<string, string>): string[] {
  return [...byPlace.entries()]
    .filter(([place]) => place.startsWith(`${at}:`))
    .map(([place, value]) => `${place.slice(at.length + 1)}=${value}`)
    .sort();
}

/** Compares two transition lists position by position. */
export function diffTransitions(
  original: readonly Transition[],
  replay: readonly Transition[],
): TransitionDiff[] {
  const length = Math.max(original.length, replay.length);
  const rows: TransitionDiff[] = [];
  for (let index = 0; index < length; index++) {
    const a = original[index];
    const b = replay[index];
    const same =
      a !== undefined &&
      b !== undefined &&
      a.at === b.at &&
      hashValue(a.summary) === hashValue(b.summary);
    rows.push({
      index,
      at: a?.at ?? b?.at ?? "?",
      same,
      original: a?.summary ?? null,
      replay: b?.summary ?? null,
    });
  }
  return rows;
}

import type { DecisionPhase, DecisionVitality, PatternScope, Provenance } from "../models/enums.js";
import { DAY_MS, type TimeInput, toIso, toMs } from "./time.js";

/** The stream fields the scores read; absent ones take the seed's defaults. */
export interface ScoredStream {
  scope?: PatternScope;
  consequences?: readonly string[];
  unique_contexts?: number;
  provenance?: Provenance;
  hit_count?: number;
  confidence?: number;
  frequency?: number;
}

/**
 * How costly forgetting a stream would be, in [0, 1]: +0.5 infra / +0.3 system scope,
 * +min(0.05·consequences, 0.2), +min(0.05·unique_contexts, 0.3), +0.4 external provenance,
 * +min(hits/100, 0.2), +0.1·confidence.
 *
 * @example
 * estimateRemovalCost({ scope: "system" }) // 0.4
 */
export function estimateRemovalCost(stream: ScoredStream): number {
  let score = stream.scope === "infra" ? 0.5 : stream.scope === "system" ? 0.3 : 0;
  score += Math.min((stream.consequences?.length ?? 0) * 0.05, 0.2);
  score += Math.min((stream.unique_contexts ?? 0) * 0.05, 0.3);
  if (stream.provenance === "external") score += 0.4;
  score += Math.min((stream.hit_count ?? 0) / 100, 0.2);
  score += (stream.confidence ?? 1) * 0.1;
  return Math.min(score, 1);
}

/**
 * How useful a stream is, in [0, 1]: min(frequency/10, 0.4) + min(unique_contexts/5, 0.3),
 * +0.2 for system or infra scope.
 *
 * @example
 * estimateUtility({ frequency: 3 }) // 0.3
 */
export function estimateUtility(stream: ScoredStream): number {
  let score = Math.min((stream.frequency ?? 0) / 10, 0.4);
  score += Math.min((stream.unique_contexts ?? 0) / 5, 0.3);
  if (stream.scope === "system" || stream.scope === "infra") score += 0.2;
  return Math.min(score, 1);
}

/** A stream as `promoteStream` reads it. */
export interface PromotableStream extends ScoredStream {
  phase?: DecisionPhase;
  vitality?: DecisionVitality;
  stability_score?: number;
  lifetime_days?: number;
  coverage?: number;
}

/** What promotion changes. */
export interface Promotion {
  phase: DecisionPhase;
  confidence: number;
  estimated_removal_cost: number;
  estimated_utility: number;
}

/**
 * Recomputes removal cost and utility, blends
 * `confidence = 0.5·old + 0.5·(0.4·utility + 0.3·removal_cost + 0.3·stability)`, then applies
 * the phase table with the new confidence: pattern → emergent when (frequency ≥ 3 or
 * confidence ≥ 0.5) and (lifetime > 0.5 days or frequency ≥ 5); emergent → canonical when
 * coverage > 0.3, stability > 0.6, removal cost > 0.5 and vitality is active.
 *
 * @example
 * promoteStream({ phase: "pattern", frequency: 5, confidence: 0 }).phase // "emergent"
 */
export function promoteStream<S extends PromotableStream>(stream: S): S & Promotion {
  const removal = estimateRemovalCost(stream);
  const utility = estimateUtility(stream);
  const stability = stream.stability_score ?? 0;
  const calculated = 0.4 * utility + 0.3 * removal + 0.3 * stability;
  const confidence = (stream.confidence ?? 1) * 0.5 + calculated * 0.5;
  const frequency = stream.frequency ?? 0;
  let phase: DecisionPhase = stream.phase ?? "pattern";
  if (phase === "pattern") {
    if (
      (frequency >= 3 || confidence >= 0.5) &&
      ((stream.lifetime_days ?? 0) > 0.5 || frequency >= 5)
    ) {
      phase = "emergent";
    }
  } else if (phase === "emergent") {
    if (
      (stream.coverage ?? 0) > 0.3 &&
      stability > 0.6 &&
      removal > 0.5 &&
      (stream.vitality ?? "active") === "active"
    ) {
      phase = "canonical";
    }
  }
  return {
    ...stream,
    phase,
    confidence,
    estimated_removal_cost: removal,
    estimated_utility: utility,
  };
}

/** A stream as `evaluateNormativeAuthority` reads it. */
export interface AuthorityStream {
  phase?: DecisionPhase;
  confidence?: number;
  frequency?: number;
  estimated_utility?: number;
  estimated_removal_cost?: number;
}

/**
 * Whether a stream speaks as a decision or only as a proposal. A pattern is always a proposal;
 * otherwise `0.4·confidence + 0.4·((utility + min(frequency/20, 0.5)) / 1.5) + 0.2·removal_cost`
 * must reach 0.7 (emergent) or 0.6 (canonical).
 *
 * @example
 * evaluateNormativeAuthority({ phase: "pattern", confidence: 1 }) // "proposal"
 */
export function evaluateNormativeAuthority(stream: AuthorityStream): "decision" | "proposal" {
  const phase = stream.phase ?? "pattern";
  if (phase === "pattern") return "proposal";
  const signals =
    ((stream.estimated_utility ?? 0) + Math.min((stream.frequency ?? 0) / 20, 0.5)) / 1.5;
  const score =
    (stream.confidence ?? 1) * 0.4 + signals * 0.4 + (stream.estimated_removal_cost ?? 0) * 0.2;
  return score >= (phase === "emergent" ? 0.7 : 0.6) ? "decision" : "proposal";
}

/**
 * A person's intervention: the stream becomes an emergent, active decision seen now, with
 * removal cost 0.8, utility 0.5 and confidence 0.7.
 *
 * @example
 * processIntervention({ phase: "pattern" }, new Date()).phase // "emergent"
 */
export function processIntervention<S extends object>(
  stream: S,
  now: TimeInput,
): S & Promotion & { vitality: "active"; first_seen: string; last_seen: string } {
  const at = toIso(now);
  return {
    ...stream,
    phase: "emergent",
    vitality: "active",
    first_seen: at,
    last_seen: at,
    estimated_removal_cost: 0.8,
    estimated_utility: 0.5,
    confidence: 0.7,
  };
}

/**
 * Vitality by days since the stream was last seen: under 7 active; under 30 decaying (confidence
 * − 0.05 per call); else dormant (− 0.2 per call), never below 0.
 *
 * @example
 * updateVitality({ confidence: 1, last_seen: "2026-02-20T12:00:00Z" }, "2026-03-01T12:00:00Z")
 * // { vitality: "decaying", confidence: 0.95 }
 */
export function updateVitality<S extends { confidence?: number; last_seen?: string }>(
  stream: S,
  now: TimeInput,
): S & { vitality: DecisionVitality; confidence: number } {
  const nowMs = toMs(now);
  const days = (nowMs - (stream.last_seen === undefined ? nowMs : toMs(stream.last_seen))) / DAY_MS;
  const confidence = stream.confidence ?? 1;
  if (days < 7) return { ...stream, vitality: "active", confidence };
  if (days < 30)
    return { ...stream, vitality: "decaying", confidence: Math.max(0, confidence - 0.05) };
  return { ...stream, vitality: "dormant", confidence: Math.max(0, confidence - 0.2) };
}

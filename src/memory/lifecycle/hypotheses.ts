import { round, type TimeInput, toMs } from "./time.js";

/** The reflection policy (the reference's defaults). */
export const REFLECTION_POLICY = {
  errorThreshold: 1,
  successThreshold: 2,
  minConfidence: 0.3,
  observationWindowMs: 3_600_000,
  decayRate: 0.05,
  readyThreshold: 0.6,
  autoAcceptThreshold: 0.9,
} as const;

/** A draft proposal's context as the hypothesis math reads it. */
export interface HypothesisContext {
  confidence?: number;
  first_observed_at?: string;
  objections?: readonly string[];
  evidence_event_ids?: readonly number[];
  counter_evidence_event_ids?: readonly number[];
  /** The reference stores errors (confirmations) here… */
  hit_count?: number;
  /** …and successes (falsifications) here; the names are kept as they are on the wire. */
  miss_count?: number;
  ready_for_review?: boolean;
}

/** New observations in a proposal's target area. */
export interface ObservationStats {
  errors: number;
  successes: number;
  all_ids: readonly number[];
  last_seen: TimeInput;
  success_event_ids?: readonly number[];
}

/** Changes to a proposal's context (wire names). */
export type ProposalUpdate = Record<string, unknown>;

const uniqueSorted = (values: readonly number[]) => [...new Set(values)].sort((a, b) => a - b);
const unique = (values: readonly string[]) => [...new Set(values)];

/**
 * Re-weighs a hypothesis against new observations: with e errors and s successes in total,
 * `confidence = max(0, e/(e+s) − 2s/(e+1))`; at ≤ 0.05 with more successes than errors the
 * proposal is falsified; it is ready for review at ≥ 0.6 once observed an hour and with fewer
 * than two objections. No observations, no update (null).
 *
 * @example
 * evaluateHypothesis({ confidence: 0.5 }, { errors: 3, successes: 0, all_ids: [1, 2, 3], last_seen: Date.now() })
 */
export function evaluateHypothesis(
  context: HypothesisContext,
  stats: ObservationStats,
  now: TimeInput = Date.now(),
): ProposalUpdate | null {
  const errors = (context.hit_count ?? 0) + stats.errors;
  const successes = (context.miss_count ?? 0) + stats.successes;
  const objections = unique(context.objections ?? []);
  if (stats.successes > 0) {
    objections.push(`Falsification Signal: ${stats.successes} successes observed in target area.`);
  }
  if (errors + successes === 0) return null;
  const confidence = Math.max(0, errors / (errors + successes) - (successes * 2) / (errors + 1));
  if (confidence <= 0.05 && successes > errors) {
    return {
      status: "falsified",
      confidence: 0,
      objections: [...objections, "Hypothesis failed to explain high success rate."],
    };
  }
  const first = context.first_observed_at ? toMs(context.first_observed_at) : toMs(now);
  const last = toMs(stats.last_seen);
  const ready =
    confidence >= REFLECTION_POLICY.readyThreshold &&
    last - first >= REFLECTION_POLICY.observationWindowMs &&
    objections.length < 2;
  return {
    confidence: round(confidence, 2),
    hit_count: errors,
    miss_count: successes,
    objections: unique(objections),
    ready_for_review: ready,
    evidence_event_ids: uniqueSorted([...(context.evidence_event_ids ?? []), ...stats.all_ids]),
    counter_evidence_event_ids: uniqueSorted([
      ...(context.counter_evidence_event_ids ?? []),
      ...(stats.success_event_ids ?? []),
    ]),
  };
}

/**
 * A draft with no new evidence loses 0.05 confidence per reflection cycle; under 0.3 it is
 * rejected.
 *
 * @example
 * applyProposalDecay(0.34) // { status: "rejected", confidence: 0.29 }
 */
export function applyProposalDecay(confidence: number): ProposalUpdate {
  const value = round(Math.max(0, confidence - REFLECTION_POLICY.decayRate), 10);
  return value < REFLECTION_POLICY.minConfidence
    ? { status: "rejected", confidence: value }
    : { confidence: value };
}

/**
 * Readiness of a draft: observed at least an hour with confidence ≥ 0.6 makes it ready for
 * review (an update), else null.
 *
 * @example
 * checkProposalLifecycle({ confidence: 0.95, first_observed_at: "2026-02-20T10:00:00Z" }, "2026-02-20T12:00:00Z")
 * // { ready_for_review: true }
 */
export function checkProposalLifecycle(
  context: HypothesisContext,
  now: TimeInput,
): ProposalUpdate | null {
  if (context.ready_for_review || !context.first_observed_at) return null;
  if (toMs(now) - toMs(context.first_observed_at) < REFLECTION_POLICY.observationWindowMs)
    return null;
  return (context.confidence ?? 0) >= REFLECTION_POLICY.readyThreshold
    ? { ready_for_review: true }
    : null;
}

/** Whether a stored draft is accepted on its own: ready, confidence ≥ 0.9 and no objections. */
export function shouldAutoAccept(context: HypothesisContext): boolean {
  return (
    context.ready_for_review === true &&
    (context.confidence ?? 0) >= REFLECTION_POLICY.autoAcceptThreshold &&
    (context.objections ?? []).length === 0
  );
}

/** An episodic event as reflection reads it. */
export interface ReflectionEvent {
  id: number;
  kind: string;
  content: string;
  context: Record<string, unknown>;
}

/** A proposal reflection wants to create (a ProposalContent with its event fields). */
export interface GeneratedProposal {
  kind: "proposal";
  source: "reflection_engine";
  title: string;
  target: string;
  rationale: string;
  confidence: number;
  status: "draft";
  strengths: string[];
  evidence_event_ids: number[];
}

const BLACKLISTED = new Set([
  "general",
  "general_development",
  "general_task",
  "unknown",
  "none",
  "null",
]);

/** The target an event speaks about (a commit's conventional-commit scope), or null. */
export function eventTarget(event: ReflectionEvent): string | null {
  let target = typeof event.context.target === "string" ? event.context.target : null;
  if (event.kind === "commit_change") {
    target = /\(([^)]+)\):/.exec(event.content)?.[1] ?? "general_development";
  }
  target = target || "general";
  return BLACKLISTED.has(target) || target.toLowerCase().startsWith("general") ? null : target;
}

/**
 * One reflection cycle's new hypotheses: per target, errors give two competing proposals
 * ("Structural flaw", 0.5; "Environmental noise", 0.4) unless a draft there is already above
 * 0.6; two successes with no active decision and no draft give a "Best Practice" (0.6); two
 * commits likewise an "Evolving Pattern" (0.5). General and unknown targets are ignored.
 *
 * @example
 * generateHypotheses(events, new Set(["auth_flow"]), [])
 */
export function generateHypotheses(
  events: readonly ReflectionEvent[],
  activeDecisionTargets: ReadonlySet<string>,
  drafts: readonly { target: string; confidence: number }[],
): GeneratedProposal[] {
  const clusters = new Map<
    string,
    { errors: number; successes: number; commits: number; ids: number[] }
  >();
  for (const event of events) {
    const target = eventTarget(event);
    if (target === null) continue;
    const cluster = clusters.get(target) ?? { errors: 0, successes: 0, commits: 0, ids: [] };
    cluster.ids.push(event.id);
    if (event.kind === "error") cluster.errors++;
    else if (event.kind === "result") cluster.successes++;
    else if (event.kind === "commit_change") cluster.commits++;
    clusters.set(target, cluster);
  }
  const out: GeneratedProposal[] = [];
  const make = (
    target: string,
    ids: number[],
    title: string,
    rationale: string,
    confidence: number,
    strengths: string[],
  ): GeneratedProposal => ({
    kind: "proposal",
    source: "reflection_engine",
    title,
    target,
    rationale,
    confidence,
    status: "draft",
    strengths,
    evidence_event_ids: ids,
  });
  for (const [target, c] of clusters) {
    const relevant = drafts.filter((d) => d.target === target);
    if (c.errors >= REFLECTION_POLICY.errorThreshold) {
      if (relevant.some((d) => d.confidence > 0.6)) continue;
      out.push(
        make(
          target,
          c.ids,
          `Structural flaw in ${target}`,
          "Consistent failures suggest a missing logical constraint.",
          0.5,
          ["Explains repeated errors"],
        ),
        make(
          target,
          c.ids,
          `Environmental noise in ${target}`,
          "Errors might be due to transient fluctuations.",
          0.4,
          ["More conservative"],
        ),
      );
    } else if (
      c.successes >= REFLECTION_POLICY.successThreshold &&
      !activeDecisionTargets.has(target)
    ) {
      if (relevant.length === 0) {
        out.push(
          make(
            target,
            c.ids,
            `Best Practice for ${target}`,
            `Repeated successful outcomes in ${target} suggest a reusable practice.`,
            0.6,
            ["Based on verified positive outcomes", "Codifies successful workflow"],
          ),
        );
      }
    } else if (c.commits >= 2 && !activeDecisionTargets.has(target)) {
      if (relevant.length === 0) {
        out.push(
          make(
            target,
            c.ids,
            `Evolving Pattern in ${target}`,
            `Repeated commits in ${target} show an evolving design.`,
            0.5,
            ["Reflects actual code changes", "Keeps memory in sync with codebase"],
          ),
        );
      }
    }
  }
  return out;
}

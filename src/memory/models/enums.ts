import { z } from "zod";

/** Where a memory event came from (seed 001, `MemoryEvent.source`). */
export const EventSource = z.enum(["user", "agent", "system", "reflection_engine", "bridge"]);
export type EventSource = z.output<typeof EventSource>;

/** Every kind of memory event (seed 001, "Event Kinds"). */
export const EventKind = z.enum([
  "decision",
  "error",
  "config_change",
  "assumption",
  "constraint",
  "result",
  "proposal",
  "context_snapshot",
  "context_injection",
  "task",
  "call",
  "commit_change",
  "prompt",
  "intervention",
  "reflection_summary",
]);
export type EventKind = z.output<typeof EventKind>;

/** The kinds stored as semantic records; every other kind is an episodic event. */
export const SEMANTIC_KINDS = [
  "decision",
  "proposal",
  "intervention",
  "constraint",
  "assumption",
] as const satisfies readonly EventKind[];
export type SemanticKind = (typeof SEMANTIC_KINDS)[number];

/** Whether a kind is stored as a semantic record. */
export function isSemanticKind(kind: string): kind is SemanticKind {
  return (SEMANTIC_KINDS as readonly string[]).includes(kind);
}

/**
 * A decision's status. The seed lists active, deprecated and superseded; the reference (v3.2.1)
 * also accepts `draft`, and Keel follows the recorded behaviour.
 */
export const DecisionStatus = z.enum(["active", "deprecated", "superseded", "draft"]);
export type DecisionStatus = z.output<typeof DecisionStatus>;

/** A draft proposal's status (`ProposalStatus`). */
export const ProposalStatus = z.enum(["draft", "accepted", "rejected", "falsified"]);
export type ProposalStatus = z.output<typeof ProposalStatus>;

/** Lifecycle phase of a decision stream. */
export const DecisionPhase = z.enum(["pattern", "emergent", "canonical"]);
export type DecisionPhase = z.output<typeof DecisionPhase>;

/** Usage recency of a decision stream. */
export const DecisionVitality = z.enum(["active", "decaying", "dormant"]);
export type DecisionVitality = z.output<typeof DecisionVitality>;

/** How far a decision reaches. */
export const PatternScope = z.enum(["local", "system", "infra"]);
export type PatternScope = z.output<typeof PatternScope>;

/** Where a stream's knowledge came from. */
export const Provenance = z.enum(["internal", "external"]);
export type Provenance = z.output<typeof Provenance>;

/** Who may change the memory (`TrustBoundary`). */
export const TrustBoundary = z.enum(["agent_with_intent", "human_only"]);
export type TrustBoundary = z.output<typeof TrustBoundary>;

/** Search modes: `strict` (active only), `balanced`, `audit` (no supersede resolution). */
export const SearchMode = z.enum(["strict", "balanced", "audit"]);
export type SearchMode = z.output<typeof SearchMode>;

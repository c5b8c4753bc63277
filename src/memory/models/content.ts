import { z } from "zod";
import { DecisionStatus, ProposalStatus } from "./enums.js";
import {
  EventIdList,
  Namespace,
  RationaleStr,
  StrictStr,
  StringList,
  TargetStr,
  WireTime,
} from "./primitives.js";

/** One step of distilled procedural knowledge. */
export const ProceduralStep = z.object({
  action: z.string(),
  rationale: z.string().nullable().default(null),
  expected_outcome: z.string().nullable().default(null),
});
export type ProceduralStep = z.output<typeof ProceduralStep>;

/** Step-by-step instructions distilled from successful trajectories (seed 001). */
export const ProceduralContent = z.object({
  steps: z.array(ProceduralStep),
  target_task: z.string(),
  success_evidence_ids: EventIdList,
});
export type ProceduralContent = z.output<typeof ProceduralContent>;

/** A file attachment: string keys and values. */
const Attachments = z.array(z.record(z.string(), z.string())).default([]);

/**
 * The content of a semantic decision (also of constraints, assumptions and interventions).
 *
 * @example
 * DecisionContent.parse({ title: "Use PostgreSQL", target: "database", rationale: "ACID and JSONB" });
 */
export const DecisionContent = z.object({
  title: StrictStr,
  target: TargetStr,
  status: DecisionStatus.default("active"),
  rationale: RationaleStr,
  namespace: Namespace,
  keywords: StringList,
  evidence_event_ids: EventIdList,
  consequences: StringList,
  superseded_by: z.string().nullable().default(null),
  attachments: Attachments,
  procedural: ProceduralContent.nullable().default(null),
});
export type DecisionContent = z.output<typeof DecisionContent>;
export type DecisionContentInput = z.input<typeof DecisionContent>;

/**
 * A draft hypothesis awaiting evaluation. `confidence` is required (the reference refuses a
 * proposal without one although the seed's table shows a 0.0 default).
 */
export const ProposalContent = z.object({
  title: StrictStr,
  target: TargetStr,
  status: ProposalStatus.default("draft"),
  rationale: RationaleStr,
  namespace: Namespace,
  confidence: z.number().min(0).max(1),
  keywords: StringList,
  strengths: StringList,
  objections: StringList,
  counter_patterns: StringList,
  alternative_ids: StringList,
  evidence_event_ids: EventIdList,
  counter_evidence_event_ids: EventIdList,
  suggested_consequences: StringList,
  suggested_supersedes: StringList,
  procedural: ProceduralContent.nullable().default(null),
  first_observed_at: WireTime.optional(),
  last_observed_at: WireTime.optional(),
  hit_count: z.int().min(0).default(0),
  miss_count: z.int().min(0).default(0),
  ready_for_review: z.boolean().default(false),
  /** Set when the proposal is accepted: the id of the decision it became. */
  converted_to: z.string().nullable().default(null),
});
export type ProposalContent = z.output<typeof ProposalContent>;
export type ProposalContentInput = z.input<typeof ProposalContent>;

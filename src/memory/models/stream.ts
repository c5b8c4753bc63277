import { z } from "zod";
import { ProceduralContent } from "./content.js";
import { DecisionPhase, DecisionVitality, PatternScope, Provenance } from "./enums.js";
import {
  EventIdList,
  Namespace,
  RationaleStr,
  StrictStr,
  StringList,
  TargetStr,
  WireTime,
} from "./primitives.js";

const Count = z.int().min(0).default(0);
const NonNegative = z.number().min(0).default(0);

/**
 * A decision with its lifecycle (seed 001, `DecisionStream`). `confidence` is not bounded here:
 * the reference accepts 2.0 on a stream (recorded), while proposals bound it to [0, 1].
 * `coverage` is not clamped either (lifetime / window can exceed 1).
 */
export const DecisionStream = z.object({
  decision_id: StrictStr,
  target: TargetStr,
  title: StrictStr,
  rationale: RationaleStr,
  namespace: Namespace,
  scope: PatternScope.default("local"),
  status: z.enum(["active", "deprecated", "superseded"]).default("active"),
  phase: DecisionPhase.default("pattern"),
  vitality: DecisionVitality.default("active"),
  provenance: Provenance.default("internal"),
  keywords: StringList,
  evidence_event_ids: EventIdList,
  consequences: StringList,
  superseded_by: z.string().nullable().default(null),
  supersedes: StringList,
  attachments: z.array(z.record(z.string(), z.string())).default([]),
  procedural: ProceduralContent.nullable().default(null),
  procedural_ids: StringList,
  frequency: Count,
  unique_contexts: Count,
  hit_count: Count,
  confidence: z.number().default(1),
  stability_score: z.number().min(0).max(1).default(0),
  reinforcement_density: NonNegative,
  coverage: NonNegative,
  lifetime_days: NonNegative,
  estimated_removal_cost: NonNegative,
  estimated_utility: NonNegative,
  first_seen: WireTime.optional(),
  last_seen: WireTime.optional(),
  schema_version: z.int().default(1),
});
export type DecisionStream = z.output<typeof DecisionStream>;
export type DecisionStreamInput = z.input<typeof DecisionStream>;

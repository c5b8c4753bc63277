import { z } from "zod";
import { SearchMode } from "./enums.js";
import { Namespace, RationaleStr, StrictStr } from "./primitives.js";

/**
 * The request models of the MCP server and the API (seed 001, "API Models"). The request layer
 * accepts a one-character target (as the reference's does); the record itself then needs three,
 * so a short target is refused by the model with its path.
 */
export const RecordDecisionRequest = z.object({
  title: StrictStr,
  target: StrictStr,
  rationale: RationaleStr,
  consequences: z
    .array(z.string())
    .nullable()
    .default([])
    .transform((list) => list ?? []),
  namespace: Namespace,
});
export type RecordDecisionRequest = z.output<typeof RecordDecisionRequest>;

/** Replaces decisions with a new one; the rationale must say why in 15 characters or more. */
export const SupersedeDecisionRequest = z.object({
  title: StrictStr,
  target: StrictStr,
  rationale: z.string().trim().min(15),
  old_decision_ids: z.array(z.string()).min(1),
  consequences: z
    .array(z.string())
    .nullable()
    .default([])
    .transform((list) => list ?? []),
  namespace: Namespace,
});
export type SupersedeDecisionRequest = z.output<typeof SupersedeDecisionRequest>;

/** A search: 1–50 results from `offset`, in a namespace, in a mode. */
export const SearchDecisionsRequest = z.object({
  query: StrictStr,
  limit: z.int().min(1).max(50).default(5),
  offset: z.int().min(0).default(0),
  namespace: Namespace,
  mode: SearchMode.default("balanced"),
});
export type SearchDecisionsRequest = z.output<typeof SearchDecisionsRequest>;

/** Accepts a draft proposal. */
export const AcceptProposalRequest = z.object({ proposal_id: StrictStr });
export type AcceptProposalRequest = z.output<typeof AcceptProposalRequest>;

/** Imports a git repository's recent commits (1–100). */
export const SyncGitHistoryRequest = z.object({
  repo_path: z.string().default("."),
  limit: z.int().min(1).max(100).default(20),
});
export type SyncGitHistoryRequest = z.output<typeof SyncGitHistoryRequest>;

/**
 * How a conflict is resolved (`ResolutionIntent`): supersede or deprecate the named decisions,
 * or abort. It must name every active conflict.
 */
export const ResolutionIntent = z.object({
  resolution_type: z.enum(["supersede", "deprecate", "abort"]),
  rationale: z.string().trim().min(15),
  target_decision_ids: z.array(z.string()),
});
export type ResolutionIntent = z.output<typeof ResolutionIntent>;

/** The outcome of routing an event (`MemoryDecision`). */
export const MemoryDecision = z.object({
  should_persist: z.boolean(),
  store_type: z.enum(["episodic", "semantic", "none"]),
  reason: z.string(),
  priority: z.int().min(0).max(10).default(0),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type MemoryDecision = z.output<typeof MemoryDecision>;

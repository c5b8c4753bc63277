import { z } from "zod";
import { ApprovalStatus, AutonomyLevel, RiskLevel } from "./enums.js";
import { JsonObject, NonEmpty, Sha256, Timestamp, Uuid } from "./primitives.js";

/** The records an approval gates. */
export const ApprovalRefs = z.strictObject({
  event_id: Uuid.nullable().default(null),
  task_id: Uuid.nullable().default(null),
  step_id: Uuid.nullable().default(null),
});

/** Who decided an approval, when and why; all null while it is pending. */
export const ApprovalDecision = z.strictObject({
  by: z.string().nullable().default(null),
  at: Timestamp.nullable().default(null),
  reason: z.string().nullable().default(null),
});

/**
 * A request for a person to allow an action (seed 003, `Approval`). `what` is the exact action
 * payload; `why` and `how_to_approve` tell the operator what is asked and how to answer.
 *
 * `required_capability` and `request_hash` are Keel additions (optional, so seed documents load
 * unchanged): the capability an operator must hold to decide this approval, and the ledger's
 * `request_hash` of the gated call it allows (a call asking anything else is not covered).
 */
export const Approval = z
  .strictObject({
    approval_id: Uuid,
    created_at: Timestamp,
    expires_at: Timestamp,
    status: ApprovalStatus,
    trace_id: Uuid,
    refs: ApprovalRefs,
    risk_level: RiskLevel,
    autonomy_level: AutonomyLevel,
    what: JsonObject,
    why: NonEmpty,
    how_to_approve: NonEmpty,
    decision: ApprovalDecision.default({ by: null, at: null, reason: null }),
    required_capability: z.string().min(1).nullable().default(null),
    request_hash: Sha256.nullable().default(null),
  })
  .superRefine((approval, ctx) => {
    const decided = approval.status === "approved" || approval.status === "denied";
    if (decided && (approval.decision.by === null || approval.decision.at === null)) {
      ctx.addIssue({
        code: "custom",
        path: ["decision"],
        message: `An ${approval.status} approval must say who decided it and when.`,
        input: approval.decision,
        params: {
          expected: "decision.by and decision.at set",
          hint: "Fill decision.by and decision.at.",
        },
      });
    }
    if (approval.status === "pending" && approval.decision.at !== null) {
      ctx.addIssue({
        code: "custom",
        path: ["decision", "at"],
        message: "A pending approval has no decision yet.",
        input: approval.decision.at,
        params: {
          expected: null,
          hint: "Set status to approved or denied, or clear the decision.",
        },
      });
    }
    if (Date.parse(approval.expires_at) <= Date.parse(approval.created_at)) {
      ctx.addIssue({
        code: "custom",
        path: ["expires_at"],
        message: "expires_at must be after created_at.",
        input: approval.expires_at,
        params: {
          expected: `> ${approval.created_at}`,
          hint: "An approval needs time to be decided.",
        },
      });
    }
  });
export type Approval = z.output<typeof Approval>;
export type ApprovalInput = z.input<typeof Approval>;

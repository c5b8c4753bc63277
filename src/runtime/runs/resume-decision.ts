import { KeelError } from "../../core/index.js";
import { isCommand } from "../../graph/index.js";
import type { ApprovalService } from "../approvals/approval-service.js";
import type { Approval } from "../contracts/approval.js";

/**
 * A person's decision carried by `Command({ resume })` to `GovernedRuntime.resume`: it decides
 * the run's pending approval (or the one named) through the approval service — capability
 * checks, audit and all — before the run continues, as `keel approvals approve` would.
 */
export interface ApprovalResume {
  decision: "approve" | "deny";
  /** Who decides (an operator id). */
  by: string;
  reason?: string | null;
  /** The capabilities the decider holds (checked against the approval's). */
  capabilities?: readonly string[];
  /** For an approval that stands for a question (an IR interrupt): the answer. */
  answer?: unknown;
  /** Which approval, when the run waits for several (default: every pending one). */
  approval_id?: string;
}

function isApprovalResume(value: unknown): value is ApprovalResume {
  const v = value as Partial<ApprovalResume> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    (v.decision === "approve" || v.decision === "deny") &&
    typeof v.by === "string"
  );
}

/**
 * Decides what `command.resume` decides and returns the approvals still pending. Refuses
 * (`INVALID_ARGUMENT`) a resume value that is not an ApprovalResume and one naming an approval
 * the run does not wait for.
 */
export async function decideFromCommand(
  approvals: ApprovalService,
  runId: string,
  pending: readonly Approval[],
  command: unknown,
): Promise<Approval[]> {
  const value = isCommand(command) ? command.resume : undefined;
  if (!isApprovalResume(value)) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      'A governed run resumes with Command({ resume: { decision: "approve" | "deny", by, reason?, capabilities? } }).',
      {
        details: { runId, resume: value ?? null },
        hint: "Pass the decision of the pending approval, or call resume without a command once it is decided.",
      },
    );
  }
  const targets = value.approval_id
    ? pending.filter((a) => a.approval_id === value.approval_id)
    : pending;
  if (value.approval_id && targets.length === 0) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `Run ${runId} does not wait for approval ${value.approval_id}.`,
      {
        details: {
          runId,
          approvalId: value.approval_id,
          pending: pending.map((a) => a.approval_id),
        },
        hint: "List the run's pending approvals with `keel approvals list`.",
      },
    );
  }
  const decision = {
    by: value.by,
    reason: value.reason ?? null,
    capabilities: value.capabilities ?? [],
    ...(value.answer !== undefined ? { answer: value.answer } : {}),
  };
  for (const approval of targets) {
    if (value.decision === "approve") await approvals.approve(approval.approval_id, decision);
    else await approvals.deny(approval.approval_id, decision);
  }
  const decided = new Set(targets.map((a) => a.approval_id));
  return pending.filter((a) => !decided.has(a.approval_id));
}

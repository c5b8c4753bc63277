import { RUN_TRANSITIONS } from "../../checkpoint/index.js";
import { KeelError } from "../../core/index.js";
import type { ApprovalStatus, StepStatus, TaskStatus, ToolCallStatus } from "../contracts/enums.js";

/**
 * The legal status transitions of the seed-003 records, as explicit tables. Anything not listed
 * is illegal, including "moving" to the status a record already has; terminal statuses have no
 * way out. Stores call `assertTransition` before every status write, so an illegal transition
 * never reaches the database.
 */
export const TRANSITIONS = {
  // The run lifecycle of src/checkpoint (one table for every run; see RUN_TRANSITIONS for the
  // one exception, an explicit retry of a failed IR document run, which governed runs never take).
  task: RUN_TRANSITIONS satisfies Record<TaskStatus, readonly TaskStatus[]>,
  step: {
    // pending → failed: the task was canceled or failed before this step ran.
    pending: ["running", "failed"],
    // running → pending: a retry was scheduled (attempt + 1, at the retry policy's wake time).
    running: ["succeeded", "failed", "paused", "pending"],
    // paused → running: approved; paused → failed: denied, expired, or canceled.
    paused: ["running", "failed"],
    succeeded: [],
    failed: [],
  } satisfies Record<StepStatus, readonly StepStatus[]>,
  tool_call: {
    attempted: ["succeeded", "failed", "unknown"],
    // unknown → outcome: resolved by an idempotent retry or by an operator who checked.
    unknown: ["succeeded", "failed"],
    succeeded: [],
    failed: [],
  } satisfies Record<ToolCallStatus, readonly ToolCallStatus[]>,
  approval: {
    pending: ["approved", "denied", "expired"],
    approved: [],
    denied: [],
    expired: [],
  } satisfies Record<ApprovalStatus, readonly ApprovalStatus[]>,
} as const;

/** A kind of record with a status lifecycle. */
export type StatusKind = keyof typeof TRANSITIONS;

/** The statuses of a kind of record. */
export type StatusOf<K extends StatusKind> = keyof (typeof TRANSITIONS)[K] & string;

/** The statuses a record of `kind` may move to from `from` (empty when `from` is terminal). */
export function allowedTransitions<K extends StatusKind>(
  kind: K,
  from: StatusOf<K>,
): readonly StatusOf<K>[] {
  const table = TRANSITIONS[kind] as Record<string, readonly string[]>;
  return (table[from] ?? []) as readonly StatusOf<K>[];
}

/** Whether a record of `kind` may move from `from` to `to`. */
export function canTransition<K extends StatusKind>(
  kind: K,
  from: StatusOf<K>,
  to: StatusOf<K>,
): boolean {
  return allowedTransitions(kind, from).includes(to);
}

/** Whether `status` is terminal for `kind` (no transition leaves it). */
export function isTerminal<K extends StatusKind>(kind: K, status: StatusOf<K>): boolean {
  return allowedTransitions(kind, status).length === 0;
}

/**
 * Refuses an illegal transition with `ILLEGAL_TRANSITION`, naming the legal ones.
 *
 * @example
 * assertTransition("approval", approval.status, "approved"); // throws if already decided
 */
export function assertTransition<K extends StatusKind>(
  kind: K,
  from: StatusOf<K>,
  to: StatusOf<K>,
  subject?: string,
): void {
  if (canTransition(kind, from, to)) return;
  const allowed = allowedTransitions(kind, from);
  const what = subject ? `${label(kind)} ${subject}` : label(kind);
  throw new KeelError("ILLEGAL_TRANSITION", `${what} cannot move from "${from}" to "${to}".`, {
    details: { kind, from, to, allowed },
    hint:
      allowed.length === 0
        ? `"${from}" is final; nothing may change it.`
        : `From "${from}" it may move only to ${allowed.map((s) => `"${s}"`).join(", ")}.`,
  });
}

function label(kind: StatusKind): string {
  return kind === "tool_call" ? "Tool call" : `${kind[0]?.toUpperCase()}${kind.slice(1)}`;
}

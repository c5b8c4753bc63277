import { KeelError } from "../core/index.js";
import type { JobStatus } from "./types.js";

/** The dispatch lifecycle's states, in order. */
export const JOB_STATUSES: readonly JobStatus[] = ["queued", "running", "completed", "failed"];

/** Terminal states: once there, a job never moves again. */
export const TERMINAL_STATUSES: ReadonlySet<JobStatus> = new Set(["completed", "failed"]);

/** The states a job can still move out of (the unique index's "live" jobs). */
export const LIVE_STATUSES: readonly JobStatus[] = ["queued", "running"];

/**
 * The allowed transitions (dispatch-lifecycle.md, "Allowed transitions"), `from → to` with the
 * trigger. Every other pair is refused without mutation.
 */
export const JOB_TRANSITIONS: readonly { from: JobStatus; to: JobStatus; trigger: string }[] = [
  { from: "queued", to: "running", trigger: "atomic claim" },
  { from: "queued", to: "failed", trigger: "cancel (user-cancelled)" },
  { from: "running", to: "completed", trigger: "record --status completed" },
  {
    from: "running",
    to: "failed",
    trigger:
      "record --status failed, reap (abandoned), runner error, report-invalid, job-file-missing, cancel",
  },
];

/** Whether `from → to` is an allowed transition. */
export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return JOB_TRANSITIONS.some((t) => t.from === from && t.to === to);
}

/** The states a job may move to from `to`'s source state `from`. */
export function sourcesOf(to: JobStatus): JobStatus[] {
  return JOB_TRANSITIONS.filter((t) => t.to === to).map((t) => t.from);
}

/** Refuses a transition the lifecycle does not allow (JOB_INVALID_TRANSITION, exit 2). */
export function assertTransition(id: string, from: JobStatus, to: JobStatus): void {
  if (canTransition(from, to)) return;
  throw new KeelError(
    "JOB_INVALID_TRANSITION",
    `Job ${id} cannot go from ${from} to ${to}: the dispatch lifecycle does not allow it${TERMINAL_STATUSES.has(from) ? ` (${from} is terminal)` : ""}.`,
    {
      details: { id, from, to },
      hint: "Only queued → running, queued → failed, running → completed and running → failed exist; submit a new job to run the action again.",
    },
  );
}

import { KeelError } from "../../core/index.js";

/** The status of a run (the seed-003 TaskStatus). */
export type RunStatus = "pending" | "running" | "paused" | "succeeded" | "failed" | "canceled";

export const RUN_STATUSES: readonly RunStatus[] = [
  "pending",
  "running",
  "paused",
  "succeeded",
  "failed",
  "canceled",
];

/**
 * Allowed moves. `running → running` is a resume after a crash (the lease decides who may);
 * `failed → running` is a retry; finished runs stay finished.
 */
const TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  pending: ["running", "canceled"],
  running: ["running", "paused", "succeeded", "failed", "canceled"],
  paused: ["running", "canceled"],
  failed: ["running", "canceled"],
  succeeded: [],
  canceled: [],
};

/** The error a run records, as data. */
export interface RunError {
  code: string;
  message: string;
}

/** One execution of a graph on a thread (the seed-003 Task). */
export interface RunRecord {
  id: string;
  threadId: string;
  status: RunStatus;
  traceId: string;
  graphId: string | null;
  triggerEventId: string | null;
  autonomyLevelAtStart: string | null;
  labels: string[];
  error: RunError | null;
  cancelReason: string | null;
  nextWakeAt: number | null;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
}

/** Refuses a move the state machine does not allow. */
export function assertTransition(run: RunRecord, to: RunStatus): void {
  if (TRANSITIONS[run.status].includes(to)) return;
  throw new KeelError(
    "RUN_INVALID_TRANSITION",
    `Run ${run.id} is ${run.status}; it cannot become ${to}.`,
    {
      details: { runId: run.id, from: run.status, to },
      hint:
        run.status === "succeeded" || run.status === "canceled"
          ? "A finished run stays finished: start a new run on the thread."
          : `From ${run.status} a run may become ${TRANSITIONS[run.status].join(", ")}.`,
    },
  );
}

/** True for the statuses a run ends in. */
export function isFinished(status: RunStatus): boolean {
  return status === "succeeded" || status === "canceled";
}

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
 * The run (seed-003 Task) lifecycle: the one transition table, also the runtime's `task` table.
 * Staying in place is not a transition: a run found `running` after a crash is resumed by whoever
 * takes its lease, without a status change. Finished runs (`succeeded`, `failed`, `canceled`) have
 * no exits, with one exception that must be asked for: `failed → running` as an explicit retry
 * (`RunStore.execute(…, { retry: true })`, `keel runs resume` of a failed IR run, audited
 * `task.retried`). Governed runs are never retried: a failed governed run is final.
 */
export const RUN_TRANSITIONS = {
  // pending → failed: refused before it started.
  pending: ["running", "canceled", "failed"],
  // running → pending: waiting for a retry's wake time or a released lease.
  running: ["pending", "paused", "succeeded", "failed", "canceled"],
  // paused: waiting for a person (an interrupt, an approval, an operator); → failed: expired/denied.
  paused: ["running", "failed", "canceled"],
  succeeded: [],
  failed: [],
  canceled: [],
} as const satisfies Record<RunStatus, readonly RunStatus[]>;

/** The one move out of a finished status, allowed only when asked for: retrying a failed run. */
export const RUN_RETRY = { from: "failed", to: "running" } as const;

/** The error a run records, as data (the seed-003 ErrorDetail when the governed runtime wrote it). */
export interface RunError {
  code: string;
  message: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
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

/**
 * Refuses a move the table does not allow. `retry` admits `failed → running` (an explicit retry);
 * a run that stays `running` (resumed after a crash) is not a move and is not checked here.
 */
export function assertTransition(
  run: RunRecord,
  to: RunStatus,
  options: { retry?: boolean } = {},
): void {
  const allowed: readonly RunStatus[] = RUN_TRANSITIONS[run.status];
  if (allowed.includes(to)) return;
  if (options.retry && run.status === RUN_RETRY.from && to === RUN_RETRY.to) return;
  const retryable = run.status === RUN_RETRY.from && to === RUN_RETRY.to;
  throw new KeelError(
    "RUN_INVALID_TRANSITION",
    `Run ${run.id} is ${run.status}; it cannot become ${to}${retryable ? " unless it is retried explicitly" : ""}.`,
    {
      details: { runId: run.id, from: run.status, to },
      hint: retryable
        ? "A failed run is final unless retried on purpose (keel runs resume <id> for an IR document run); a failed governed run is final: start a new run."
        : allowed.length === 0
          ? "A finished run stays finished: start a new run on the thread."
          : `From ${run.status} a run may become ${allowed.join(", ")}.`,
    },
  );
}

/** True for the statuses a run ends in. */
export function isFinished(status: RunStatus): boolean {
  return status === "succeeded" || status === "canceled";
}

import type { JobFailureReason, JobStatus } from "../store/index.js";

export type { JobFailureReason, JobStatus };

/** Which runner executes a job (job.schema.json `runner`). */
export type RunnerKind = "cli" | "skill" | "in-process";

/**
 * A job as the spec's job.schema.json names it (camelCase). The nonce is left out: it is the
 * job's only credential and leaves the queue only through {@link SubmittedJob} and the claim.
 */
export interface Job {
  readonly id: string;
  readonly actionId: string;
  readonly actionVersion: string;
  readonly nodeId: string;
  readonly contentHash: string;
  readonly priority: number;
  readonly status: JobStatus;
  readonly failureReason: JobFailureReason | null;
  readonly runner: RunnerKind | null;
  readonly ttlSeconds: number;
  readonly filePath: string | null;
  readonly createdAt: number;
  readonly claimedAt: number | null;
  readonly finishedAt: number | null;
  readonly expiresAt: number | null;
  readonly submittedBy: string | null;
  /** Times a worker took this in-process job over after its TTL, resuming its run (0: never). */
  readonly resumeCount: number;
}

/** A job together with its nonce: what submit and claim hand to the one who must record it. */
export interface JobWithNonce extends Job {
  readonly nonce: string;
}

type RowLike = {
  id: string;
  action_id: string;
  action_version: string;
  node_id: string;
  content_hash: string;
  nonce: string;
  priority: number;
  status: JobStatus;
  failure_reason: JobFailureReason | null;
  runner: RunnerKind | null;
  ttl_seconds: number;
  file_path: string | null;
  created_at: number;
  claimed_at: number | null;
  finished_at: number | null;
  expires_at: number | null;
  submitted_by: string | null;
  resume_count?: number;
};

const num = (value: number | null): number | null => (value === null ? null : Number(value));

/** A row as the API's {@link Job} (the nonce dropped). */
export function jobFromRow(row: RowLike): Job {
  return {
    id: row.id,
    actionId: row.action_id,
    actionVersion: row.action_version,
    nodeId: row.node_id,
    contentHash: row.content_hash,
    priority: Number(row.priority),
    status: row.status,
    failureReason: row.failure_reason,
    runner: row.runner,
    ttlSeconds: Number(row.ttl_seconds),
    filePath: row.file_path,
    createdAt: Number(row.created_at),
    claimedAt: num(row.claimed_at),
    finishedAt: num(row.finished_at),
    expiresAt: num(row.expires_at),
    submittedBy: row.submitted_by,
    resumeCount: Number(row.resume_count ?? 0),
  };
}

/** A row as a {@link JobWithNonce}. */
export function jobWithNonceFromRow(row: RowLike): JobWithNonce {
  return { ...jobFromRow(row), nonce: row.nonce };
}

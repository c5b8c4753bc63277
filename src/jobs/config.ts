import type { Kysely } from "kysely";
import type { KernelDatabase } from "../store/index.js";

/** The settings jobs read from `config_preferences` (`keel config set jobs.<key> <value>`). */
export interface JobsConfig {
  /** `jobs.minimum_ttl_seconds`: the TTL floor (default 60). */
  readonly minimumTtlSeconds: number;
  /** `jobs.grace_multiplier`: expectedDurationSeconds × this (default 3). */
  readonly graceMultiplier: number;
  /** `jobs.per_action_ttl.<actionId>`: a TTL per action, beating the computed one. */
  readonly perActionTtl: Readonly<Record<string, number>>;
  /** `jobs.runner.command`: what the cli runner spawns (default `claude -p --output-format json`). */
  readonly runnerCommand: string;
  /** `jobs.retention.completed`: seconds a completed job is kept (default 30 days; null: forever). */
  readonly retentionCompletedSeconds: number | null;
  /** `jobs.retention.failed`: seconds a failed job is kept (default null: forever). */
  readonly retentionFailedSeconds: number | null;
  /** `jobs.max_report_bytes`: a larger report is refused as report-invalid (default 8 MiB). */
  readonly maxReportBytes: number;
  /**
   * `jobs.max_resumes`: how many times a crashed in-process job is taken over by the next worker
   * (default 3); once spent, the reap fails it as abandoned. 0: never resume.
   */
  readonly maxResumes: number;
}

export const DEFAULT_JOBS_CONFIG: JobsConfig = {
  minimumTtlSeconds: 60,
  graceMultiplier: 3,
  perActionTtl: {},
  runnerCommand: "claude -p --output-format json",
  retentionCompletedSeconds: 2_592_000,
  retentionFailedSeconds: null,
  maxReportBytes: 8 * 1024 * 1024,
  maxResumes: 3,
};

const positive = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;

/** Reads the `jobs.*` preferences over the defaults; a value of the wrong type is ignored. */
export async function readJobsConfig(db: Kysely<KernelDatabase>): Promise<JobsConfig> {
  const rows = await db
    .selectFrom("config_preferences")
    .select(["key", "value_json"])
    .where("key", "like", "jobs.%")
    .execute();
  const values = new Map<string, unknown>();
  for (const row of rows) {
    try {
      values.set(row.key, JSON.parse(row.value_json));
    } catch {
      // a value that is not JSON is not a setting Keel wrote; the default stands
    }
  }
  const perActionTtl: Record<string, number> = {};
  for (const [key, value] of values) {
    const id = key.startsWith("jobs.per_action_ttl.") ? key.slice(20) : null;
    const ttl = positive(value);
    if (id && ttl !== undefined) perActionTtl[id] = Math.ceil(ttl);
  }
  const retention = (key: string, fallback: number | null): number | null => {
    if (!values.has(key)) return fallback;
    const value = values.get(key);
    return value === null ? null : (positive(value) ?? fallback);
  };
  const command = values.get("jobs.runner.command");
  return {
    minimumTtlSeconds:
      positive(values.get("jobs.minimum_ttl_seconds")) ?? DEFAULT_JOBS_CONFIG.minimumTtlSeconds,
    graceMultiplier:
      positive(values.get("jobs.grace_multiplier")) ?? DEFAULT_JOBS_CONFIG.graceMultiplier,
    perActionTtl,
    runnerCommand:
      typeof command === "string" && command.trim() ? command : DEFAULT_JOBS_CONFIG.runnerCommand,
    retentionCompletedSeconds: retention(
      "jobs.retention.completed",
      DEFAULT_JOBS_CONFIG.retentionCompletedSeconds,
    ),
    retentionFailedSeconds: retention(
      "jobs.retention.failed",
      DEFAULT_JOBS_CONFIG.retentionFailedSeconds,
    ),
    maxReportBytes:
      positive(values.get("jobs.max_report_bytes")) ?? DEFAULT_JOBS_CONFIG.maxReportBytes,
    maxResumes: count(values.get("jobs.max_resumes")) ?? DEFAULT_JOBS_CONFIG.maxResumes,
  };
}

/**
 * The TTL of a new job (dispatch-lifecycle.md, "TTL precedence"; later wins): the computed
 * `max(expectedDurationSeconds × graceMultiplier, minimumTtlSeconds)`, then the per-action
 * setting, then the `--ttl` flag.
 */
export function resolveTtl(
  config: JobsConfig,
  action: { id: string; expectedDurationSeconds: number },
  flagTtl?: number,
): number {
  if (flagTtl !== undefined) return flagTtl;
  const perAction = config.perActionTtl[action.id];
  if (perAction !== undefined) return perAction;
  return Math.max(
    Math.ceil(action.expectedDurationSeconds * config.graceMultiplier),
    Math.ceil(config.minimumTtlSeconds),
  );
}

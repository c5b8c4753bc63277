import { existsSync, readdirSync } from "node:fs";
import { basename, isAbsolute, join } from "node:path";
import type { StoreBackend } from "../dialects/backend.js";

/** One doctor check's outcome, before it gets its id. */
export interface CheckOutcome {
  readonly status: "ok" | "warn";
  readonly message: string;
  readonly remedy: string | null;
}

/** A value as a SQL string literal. */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** A path as one shell word. */
function shellWord(value: string): string {
  return `'${value.replace(/'/g, "'\\''")}'`;
}

/**
 * The seed's job-integrity checks: job files in `<.keel>/jobs/*.md` that no job row names, job
 * rows whose `file_path` does not exist, and running jobs past their TTL that no reap has failed
 * yet. The remedies name `keel job prune --orphan-files` and `keel job reap` (`keel job run` or a
 * worker when in-process jobs, which they resume, are among the expired), and spell out the
 * exact file and SQL operations for a single file or a job whose file is gone.
 */
export async function jobChecks(
  backend: StoreBackend,
  keelDir: string,
  now: number,
): Promise<{ files: CheckOutcome; rows: CheckOutcome; stuck: CheckOutcome }> {
  const jobs = await backend.kysely
    .selectFrom("state_jobs")
    .select(["id", "file_path", "status"])
    .execute();
  const jobsDir = join(keelDir, "jobs");
  const known = new Set(
    jobs.flatMap((job) => [job.id, job.file_path ? basename(job.file_path) : ""]),
  );
  const files = existsSync(jobsDir)
    ? readdirSync(jobsDir).filter((name) => name.endsWith(".md"))
    : [];
  const orphanFiles = files.filter((name) => !known.has(name) && !known.has(name.slice(0, -3)));
  const orphanRows = jobs.filter(
    (job) =>
      job.file_path &&
      !existsSync(isAbsolute(job.file_path) ? job.file_path : join(keelDir, "..", job.file_path)),
  );
  const ids = orphanRows.map((job) => sqlString(job.id)).join(", ");
  const stuck = await backend.kysely
    .selectFrom("state_jobs")
    .select(["id", "expires_at", "runner"])
    .where("status", "=", "running")
    .where("expires_at", "<", now)
    .orderBy("expires_at")
    .execute();
  return {
    files:
      orphanFiles.length === 0
        ? { status: "ok", message: "No job file without a job.", remedy: null }
        : {
            status: "warn",
            message: `${orphanFiles.length} job file(s) in ${jobsDir} have no job: ${orphanFiles.slice(0, 5).join(", ")}.`,
            remedy: `Keel never deletes job files unasked: \`keel job prune --orphan-files\` (with the --db or -g you gave doctor) deletes all of them, or delete the ones you do not need, e.g. \`rm ${orphanFiles.map((name) => shellWord(join(jobsDir, name))).join(" ")}\`.`,
          },
    rows:
      orphanRows.length === 0
        ? { status: "ok", message: "Every job's file exists.", remedy: null }
        : {
            status: "warn",
            message: `${orphanRows.length} job(s) point at a missing file: ${orphanRows
              .slice(0, 5)
              .map((job) => `${job.id} (${job.status})`)
              .join(", ")}.`,
            remedy: `In \`keel db shell\` (with the --db or -g you gave doctor), fail the unfinished ones as the seed says and clear the missing paths: \`UPDATE state_jobs SET status = 'failed', failure_reason = 'job-file-missing', finished_at = ${now} WHERE id IN (${ids}) AND status IN ('queued', 'running');\` then \`UPDATE state_jobs SET file_path = NULL WHERE id IN (${ids});\``,
          },
    stuck:
      stuck.length === 0
        ? { status: "ok", message: "No running job is past its TTL.", remedy: null }
        : {
            status: "warn",
            message: `${stuck.length} running job(s) are past their TTL: ${stuck
              .slice(0, 5)
              .map(
                (job) =>
                  `${job.id} (expired ${Math.round((now - Number(job.expires_at)) / 1000)} s ago)`,
              )
              .join(", ")}.`,
            remedy: stuck.some((job) => job.runner === "in-process")
              ? "Their runners are gone or stuck: `keel job run` or a `keel worker` (with the --db or -g you gave doctor) resumes the in-process ones from their checkpoints (up to jobs.max_resumes) and fails the rest as abandoned; `keel job reap` only fails; submit failed ones again to retry."
              : "Their runners are gone or stuck: `keel job reap` (with the --db or -g you gave doctor) fails them as abandoned, as every `keel job run` does first; submit them again to retry.",
          },
  };
}

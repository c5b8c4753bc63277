export type { Action } from "./actions/action.js";
export { BUILTIN_ACTIONS, summarizedKind } from "./actions/builtins.js";
export {
  type ActionManifest,
  type ActionManifestInput,
  ActionManifestSchema,
} from "./actions/manifest.js";
export {
  type ActionLoadFailure,
  type ActionRegistry,
  loadActions,
  parseActionManifest,
} from "./actions/registry.js";
export { REPORT_BASE_SCHEMA } from "./actions/report-base.js";
export { SUMMARY_SCHEMAS } from "./actions/summary-schemas.js";
export type { ClaimRequest } from "./batch/queue-batches.js";
export { cancelJob } from "./cancel.js";
export { claimNextJob } from "./claim.js";
export { DEFAULT_JOBS_CONFIG, type JobsConfig, readJobsConfig, resolveTtl } from "./config.js";
export { type ContentHashParts, contentHash, promptTemplateHash } from "./content-hash.js";
export { absoluteIn, type JobsContext, openJobsContext } from "./context.js";
export { type JobEvent, type JobEventSink, type JobEventType, ndjsonSink } from "./events/event.js";
export {
  type ExecutionRecord,
  type HistoryFilter,
  type HistoryStats,
  historyStats,
  listExecutions,
  parseSince,
} from "./history.js";
export { newJobId, newNonce, newRunId } from "./ids.js";
export {
  countJobs,
  getJob,
  type JobDetail,
  type ListJobsFilter,
  listJobs,
  showJob,
} from "./list.js";
export { PREAMBLE_V1 } from "./preamble.js";
export { type PruneResult, pruneJobFiles } from "./prune.js";
export { reapExpired } from "./reap.js";
export {
  type RecordAndClaim,
  type RecordOutcome,
  type RecordRequest,
  recordAndClaimNext,
  recordJob,
} from "./record.js";
export { renderJobFile, userContentBlock } from "./render-job-file.js";
export { resumeExpiredJob } from "./resume.js";
export { type RunOptions, type RunSummary, runJobs } from "./run.js";
export { actionRunner, inProcessActionIds } from "./runners/action-runner.js";
export { parseCliOutput } from "./runners/cli-output.js";
export { type CliRunnerOptions, cliRunner } from "./runners/cli-runner.js";
export {
  type InProcessRunnerOptions,
  inProcessRunner,
  jobThreadId,
} from "./runners/in-process-runner.js";
export type { JobRunner, RunnerJob, RunnerResult } from "./runners/runner.js";
export type { ClaimFilter } from "./sql/claim-jobs.js";
export { transitionJob } from "./sql/transition-job.js";
export {
  assertTransition,
  canTransition,
  JOB_STATUSES,
  JOB_TRANSITIONS,
  LIVE_STATUSES,
  TERMINAL_STATUSES,
} from "./state-machine.js";
export { type SubmitRequest, submitJob } from "./submit.js";
export type { Job, JobFailureReason, JobStatus, JobWithNonce, RunnerKind } from "./types.js";
export { jobFromRow } from "./types.js";
export { runWorker, type WorkerOptions, type WorkerSummary } from "./worker.js";

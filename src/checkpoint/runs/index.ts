export { acquireLease, ownerIsDead, releaseLease, renewLease } from "./lease.js";
export { assertNoLiveRuns, type LiveLease, liveLeases } from "./live-leases.js";
export { type RunDocument, RunDocumentStore } from "./run-documents.js";
export {
  assertTransition,
  isFinished,
  RUN_RETRY,
  RUN_STATUSES,
  RUN_TRANSITIONS,
  type RunError,
  type RunRecord,
  type RunStatus,
} from "./run-record.js";
export {
  type NewRun,
  RunStore,
  type RunStoreOptions,
  type RunTransition,
  runInsertStatement,
  runUpdateStatement,
} from "./run-store.js";

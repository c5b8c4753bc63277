export { acquireLease, ownerIsDead, releaseLease, renewLease } from "./lease.js";
export { type RunDocument, RunDocumentStore } from "./run-documents.js";
export {
  assertTransition,
  isFinished,
  RUN_STATUSES,
  type RunError,
  type RunRecord,
  type RunStatus,
} from "./run-record.js";
export { type NewRun, RunStore, type RunStoreOptions } from "./run-store.js";

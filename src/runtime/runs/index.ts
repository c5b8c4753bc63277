export {
  type ExpiringRuntime,
  type ExpirySweep,
  type ExpirySweepOptions,
  startExpirySweep,
} from "./expiry-sweep.js";
export {
  type Continuation,
  continueGovernedRun,
  type GovernedApp,
  type GovernedAppFactory,
  type LoadedGovernedApp,
  loadGovernedApp,
  type ReplayChanges,
  replayGovernedRun,
} from "./governed-app.js";
export { errorDetail, type GovernedNodeOptions, governedNode } from "./governed-node.js";
export {
  type GovernedGraph,
  type GovernedRunResult,
  GovernedRuntime,
  type GovernedRuntimeOptions,
  type StartGovernedRun,
} from "./governed-runtime.js";
export type { GovernedStream, StreamingGraph } from "./governed-stream.js";
export { type GovernedPause, type NodeCallOptions, NodeContext } from "./node-context.js";
export { checkOperatorOutput, type OutputCheck } from "./operator-output.js";
export {
  abandonedRuns,
  type Recovery,
  recoverAbandonedRuns,
  recoverGovernedRun,
} from "./recover-runs.js";
export type { ReplayReport, Transition, TransitionDiff } from "./replay-report.js";
export { type CallDivergence, ReplaySource, type RequestHasher } from "./replay-source.js";
export { type ApprovalResume, decideFromCommand } from "./resume-decision.js";
export { type ApprovalCapability, GOVERNANCE_KEY, type RunContext } from "./run-context.js";
export { loadGrant, type RunGrant } from "./run-grants.js";
export { stepFromRow } from "./step-rows.js";
export { type EnterStep, StepStore } from "./step-store.js";

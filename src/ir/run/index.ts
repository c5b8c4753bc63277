export {
  type CompileDocumentOptions,
  type CompiledDocument,
  compileDocument,
} from "./compile.js";
export type {
  FiredRule,
  IrGovernance,
  IrWait,
  IrWaitDecision,
  ToolCaller,
  ToolDescriber,
} from "./governance.js";
export {
  BUILTIN_NODE_KINDS,
  type IrNode,
  type KindsModule,
  knownNodeKinds,
  loadKindsModule,
  loadNodeKinds,
  moduleTarget,
  type NodeContext,
  type NodeFactory,
  registerNodeKinds,
} from "./node-kinds.js";
export { loadPackFiles, loadPluginPacks, type PackSource } from "./packs.js";
export type { BranchResult } from "./parallel.js";
export {
  assertMayRespond,
  assertMigratable,
  type PendingInterrupt,
  pendingInterrupt,
  type RespondOptions,
  resumeDocument,
} from "./resume.js";
export type { Transition } from "./routing.js";
export { type IrRunState, timedOut } from "./run-state.js";
export { STATE_TYPES, type StateClasses } from "./state.js";
export {
  registeredStoreProviders,
  registerStoreProviders,
  type StoreBindingContext,
  type StoreProvider,
} from "./store-bindings.js";

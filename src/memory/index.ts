/**
 * `keel/memory`: the decision memory of seed 001 on the kernel database — models, lifecycle,
 * invariants, storage and operations. See docs/memory.md.
 *
 * @example
 * import { validateMemoryModel, promoteStream } from "keel/memory";
 */
export { toJsonPointer as jsonPointerOf } from "../runtime/index.js";
export {
  type MemoryContextNodeOptions,
  memoryContextKind,
  memoryContextNode,
  memoryStoreProvider,
} from "./graph/context-node.js";
export {
  DecisionMemoryStore,
  type DecisionMemoryStoreOptions,
  STORE_ITEM_TARGET_PREFIX,
} from "./graph/memory-store.js";
export * from "./invariants/index.js";
export * from "./lifecycle/index.js";
export * from "./models/index.js";
export * from "./search/embedder.js";
export { finalScore, fuseRankings, RRF_K } from "./search/fusion.js";
export { queryTerms } from "./search/query-terms.js";
export * from "./service/index.js";
export type { MemoryRecord } from "./store/record-shape.js";

/**
 * `keel/memory`: the decision memory of seed 001 on the kernel database — models, lifecycle,
 * invariants, storage and operations. See docs/memory.md.
 *
 * @example
 * import { validateMemoryModel, promoteStream } from "keel/memory";
 */
export { toJsonPointer as jsonPointerOf } from "../runtime/index.js";
export * from "./invariants/index.js";
export * from "./lifecycle/index.js";
export * from "./models/index.js";

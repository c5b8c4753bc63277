/**
 * The governed runtime (seed 003): the wire contracts (MessageEvent, RoutingDecision, Task,
 * Step, ToolCall, ToolResult, AuditEvent, Approval) and the policies built on them.
 * See docs/runtime.md.
 */

export * from "./approvals/index.js";
export { type ArtifactRef, getArtifact, putArtifact } from "./artifacts/artifact-store.js";
export * from "./audit/index.js";
export * from "./contracts/index.js";
export type { RuntimeDatabase, RuntimeDb, RuntimeTables } from "./db/tables.js";
export { runtimeDb } from "./db/tables.js";
export * from "./documents/index.js";
export * from "./ingest/index.js";
export * from "./ledger/index.js";
export * from "./policy/index.js";
export * from "./routing/index.js";
export * from "./runs/index.js";
export * from "./tools/index.js";
export {
  problemsFromZodIssues,
  toJsonPointer,
  type ValidationProblem,
  type ValidationResult,
} from "./validation/problems.js";

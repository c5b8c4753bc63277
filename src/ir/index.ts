/**
 * Keel's portable graph documents (seed 000, the IR): models with JSON Schema export, canonical
 * serialisation and hashing, eager validation with structured problems, versioning and ids.
 *
 * @example
 * import { graphHash, loads, validate } from "keel/ir";
 * const problems = validate(text);
 * if (problems.length === 0) console.log(graphHash(loads(text)));
 */

export { AUTHORING_DONE, compileAuthoring, isAuthoringFormat } from "./authoring.js";
export { type CypherViolation, cypherProblems, cypherViolation } from "./cypher-lint.js";
export { documentText } from "./document-text.js";
export { DURATION_FORMS, DURATION_PATTERN, durationSeconds, timeoutMillis } from "./duration.js";
export { IrValidationError } from "./errors.js";
export { factContentHash } from "./fact-hash.js";
export {
  autogenNodeIds,
  autogenPackIds,
  autogenRuleIds,
  type Identifiable,
  type IdKind,
  isValidSlug,
  newCheckpointId,
  newRunId,
  SLUG_MAX_LENGTH,
  SLUG_PATTERN,
  slug,
  validateNodeId,
  validatePackId,
  validateRuleId,
  type WithId,
} from "./ids.js";
export { coerceLegacyToolSpec } from "./legacy.js";
export { lintDocument } from "./lint.js";
export * from "./models/index.js";
export { jsonPointer, type Problem } from "./problems.js";
export { pythonCanonicalJson } from "./python-json.js";
export { PARALLEL_STRATEGIES, USER_CODE_KIND } from "./references.js";
export {
  assertMayRespond,
  assertMigratable,
  BUILTIN_NODE_KINDS,
  type CompileDocumentOptions,
  type CompiledDocument,
  compileDocument,
  type FiredRule,
  type IrGovernance,
  type IrNode,
  type IrRunState,
  type IrWait,
  type IrWaitDecision,
  type KindsModule,
  knownNodeKinds,
  loadKindsModule,
  loadNodeKinds,
  loadPackFiles,
  loadPluginPacks,
  moduleTarget,
  type NodeContext,
  type NodeFactory,
  type PackSource,
  type PendingInterrupt,
  pendingInterrupt,
  type RespondOptions,
  registeredStoreProviders,
  registerNodeKinds,
  registerStoreProviders,
  resumeDocument,
  STATE_TYPES,
  type StateClasses,
  type StoreBindingContext,
  type StoreProvider,
  type ToolCaller,
  type ToolDescriber,
  type Transition,
  timedOut,
} from "./run/index.js";
export { type JsonSchema, type JsonSchemaOptions, jsonSchemaFor, modelNames } from "./schema.js";
export {
  dumps,
  dumpsCanonical,
  graphHash,
  type JsonParseResult,
  loads,
  type ModelInput,
  type ModelValue,
  parseJson,
} from "./serialize.js";
export {
  type StructuralHashOptions,
  stateModelSchema,
  structuralHash,
} from "./structural-hash.js";
export { type FactStyle, factStyleOf, templateConstructs } from "./template-facts.js";
export {
  type ValidateOptions,
  type ValidationResult,
  validate,
  validateDocument,
  validateModel,
} from "./validate.js";
export {
  checkPackCompat,
  checkVersion,
  FACTS_VERSION,
  IR_VERSION,
  isAtLeast11,
  PackCompatError,
  type PackCompatOptions,
  PLUGIN_API_VERSION,
  parseVersion,
} from "./version.js";
export { documentWarnings } from "./warnings.js";
export {
  backfillRuleNodeIds,
  compileWhen,
  WHEN_NODE_KEY,
  type When,
  whenNodeRef,
} from "./when.js";

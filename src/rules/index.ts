/**
 * The rule engine: a TypeScript implementation of the CLIPS 6.30 rule-language subset that
 * agent governance needs, matched incrementally (Rete). Pure: no I/O.
 *
 * @example
 * import { RuleEngine, runBatch } from "keel/rules";
 * runBatch("(assert (a 1))\n(facts)\n(exit)").output;
 */
export { type BatchOptions, type BatchResult, CLIPS_BANNER, runBatch } from "./batch.js";
export {
  type AgendaEntry,
  type EngineSnapshot,
  type FactData,
  type FactInput,
  type Firing,
  type HostFunction,
  type RuleDefinition,
  RuleEngine,
  type RuleEngineOptions,
} from "./engine.js";
export {
  DEFAULT_RULE_LIMITS,
  IR_RULE_LIMITS,
  type RuleLimits,
  resolveRuleLimits,
  ruleLimitError,
} from "./limits.js";
export { MAX_FORM_DEPTH, readForms, type SourcePos } from "./reader.js";
export {
  type CheckRulesOptions,
  checkRules,
  type ParsedRule,
  type RuleCheck,
  type RuleProblem,
  ruleProblem,
} from "./rule-check.js";
export {
  type Atom,
  ClipsFloat,
  ClipsString,
  type FactRef,
  float,
  formatValue,
  type Multifield,
  str,
  toPlain,
  type Value,
} from "./values.js";

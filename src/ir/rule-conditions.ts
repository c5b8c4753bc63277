import {
  checkRules,
  type ParsedRule,
  type RuleDefinition,
  type RuleProblem,
} from "../rules/index.js";
import type { IRDocument } from "./models/index.js";
import { hintFor, type Problem, renderActual } from "./problems.js";

/** Host functions a run's engine has besides the built-ins (see run/pack-actions.ts). */
const HOST_FUNCTIONS = ["ir-action"];

/**
 * The parsed rules of documents that passed validation, for compiling them without parsing the
 * text again (validation parses every rule exactly as the run's engine defines it).
 */
const parsed = new WeakMap<IRDocument, readonly ParsedRule[]>();

/**
 * The rule engine definitions of a document's rules: declaration order is priority (the first
 * rule gets the highest salience), the `then` actions come back in the rule's firings.
 */
export function ruleDefinitions(doc: IRDocument): RuleDefinition[] {
  const count = doc.rules.length;
  return doc.rules.map((rule, index) => ({
    name: rule.id,
    salience: count - index,
    when: rule.when,
    actions: rule.then,
  }));
}

/**
 * Parses every rule's `when` as the left-hand side of a CLIPS rule and returns a `rule_invalid`
 * problem at `/rules/<i>/when` for each that does not parse, with the line and column within the
 * `when` text. Run after the id stage (rule ids are slugs, hence valid CLIPS names). When every
 * rule parses, the parse is kept for compiling the document ({@link parsedRulesOf}).
 *
 * @example
 * checkRuleConditions(doc) // [{ code: "rule_invalid", path: "/rules/0/when", … }]
 */
export function checkRuleConditions(doc: IRDocument): Problem[] {
  const check = checkRules(ruleDefinitions(doc), { functions: HOST_FUNCTIONS });
  if (check.problems.length === 0) {
    parsed.set(doc, check.rules as readonly ParsedRule[]);
    return [];
  }
  return check.problems.map((problem) => ruleProblem(doc, problem));
}

/** The rules of `doc` as validation parsed them, when it did. */
export function parsedRulesOf(doc: IRDocument): readonly ParsedRule[] | undefined {
  return parsed.get(doc);
}

/** The IR problem for a rule the rule engine refused (at validation or when compiling). */
export function ruleProblem(doc: IRDocument, problem: RuleProblem): Problem {
  const when = doc.rules[problem.index]?.when ?? "";
  const where =
    problem.line === null ? "at the end: " : `line ${problem.line}, column ${problem.column}: `;
  const arrow = problem.code === "actions_in_when";
  const message = arrow
    ? "it contains '=>': actions belong in the rule's `then` list"
    : `${where}${problem.message}.`;
  return {
    code: "rule_invalid",
    path: `/rules/${problem.index}/when`,
    message: `The rule's \`when\` is not valid CLIPS: ${message}`,
    expected: "CLIPS conditions, e.g. (severity ?s&:(>= ?s 4)) (node-id triage)",
    actual: renderActual(when),
    hint: arrow
      ? "Keep only the conditions in `when`; write the actions as `then` entries."
      : (problem.hint ?? hintFor("rule_invalid")),
  };
}

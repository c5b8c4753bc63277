import {
  checkRules,
  type ParsedRule,
  type RuleDefinition,
  type RuleProblem,
} from "../rules/index.js";
import type { IRDocument } from "./models/index.js";
import { hintFor, type Problem, renderActual } from "./problems.js";
import { templateConstructs } from "./template-facts.js";
import { isAtLeast11 } from "./version.js";
import { compileWhen, whenNodeRef, whenProblem } from "./when.js";

/** Host functions a run's engine has besides the built-ins (see run/pack-actions.ts). */
const HOST_FUNCTIONS = ["ir-action"];

/**
 * Documents whose rules all passed validation, with whether the check covered every rule
 * (`ParsedRule.definable`). The parses themselves are not kept: keeping 5,000 syntax trees
 * alive from validation to the first run cost more in garbage collection (copying them while
 * validation still allocates) than parsing them again when the engine is built.
 */
const checked = new WeakMap<IRDocument, boolean>();

/**
 * The rule engine definitions of a document's rules: declaration order is priority (the first
 * rule gets the highest salience), the `then` actions come back in the rule's firings.
 */
export function ruleDefinitions(doc: IRDocument): RuleDefinition[] {
  const count = doc.rules.length;
  return doc.rules.map((rule, index) => ({
    name: rule.id,
    salience: count - index,
    when: compileWhen(rule.when),
    actions: rule.then,
  }));
}

/**
 * Parses every rule's `when` as the left-hand side of a CLIPS rule and returns a `rule_invalid`
 * problem at `/rules/<i>/when` for each that does not parse, with the line and column within the
 * `when` text. Run after the id stage (rule ids are slugs, hence valid CLIPS names). When every
 * rule parses, whether all are definable is kept for compiling the document ({@link rulesDefinable}).
 *
 * @example
 * checkRuleConditions(doc) // [{ code: "rule_invalid", path: "/rules/0/when", … }]
 */
export function checkRuleConditions(doc: IRDocument): Problem[] {
  const sugar = checkWhenMappings(doc);
  if (sugar.length > 0) return sugar;
  const problems = conditionProblems(doc);
  // IR 1.1.0 (Stargraph 0.8) leaves a condition's text to the engine that runs it: such a
  // document validates, and compiling it refuses the rule (documentWarnings reports it first).
  return isAtLeast11(doc.ir_version) ? [] : problems;
}

/**
 * The `rule_invalid` problems of a document's `when` texts (mapping sugar compiled first). At
 * IR 1.1.0 these are warnings of a valid document and errors when it is compiled.
 */
export function conditionProblems(doc: IRDocument): Problem[] {
  // Mapping sugar compiles to conditions over templates its own keys declare (templateConstructs
  // defines them), so once checkWhenMappings passed it it parses by construction: only rules
  // written as CLIPS text are parsed here (a 5,000-rule document written in sugar parses none).
  const written: number[] = [];
  doc.rules.forEach((rule, index) => {
    if (typeof rule.when === "string") written.push(index);
  });
  const count = doc.rules.length;
  const check = checkRules(
    written.map((index) => {
      const rule = doc.rules[index] as IRDocument["rules"][number];
      return { name: rule.id, salience: count - index, when: rule.when as string };
    }),
    {
      functions: HOST_FUNCTIONS,
      keepParses: false,
      // A governance pack loaded before the rules may define the globals a rule reads.
      globals: "any",
      templates: templateConstructs(doc, Object.keys(doc.state_schema)),
    },
  );
  if (check.problems.length === 0) {
    checked.set(
      doc,
      (check.rules as readonly ParsedRule[]).every((rule) => rule.definable),
    );
    return [];
  }
  return check.problems.map((problem) =>
    ruleProblem(doc, { ...problem, index: written[problem.index] ?? problem.index }),
  );
}

/**
 * The `when` mapping sugar's problems: one that cannot compile (`when_invalid`), or whose `node`
 * is not a node of the document (`unknown_node`: such a rule could never fire).
 */
function checkWhenMappings(doc: IRDocument): Problem[] {
  const nodes = new Set(doc.nodes.map((node) => node.id));
  const problems: Problem[] = [];
  doc.rules.forEach((rule, index) => {
    const path = `/rules/${index}/when`;
    const problem = whenProblem(rule.when);
    if (problem !== undefined) {
      problems.push({
        code: "when_invalid",
        path,
        message: problem,
        expected: "{node: <node-id>, <state-field>: <string|number|boolean>}",
        actual: renderActual(rule.when),
        hint: hintFor("when_invalid"),
      });
      return;
    }
    const node = whenNodeRef(rule.when);
    if (node !== null && !nodes.has(node)) {
      problems.push({
        code: "unknown_node",
        path,
        message: `when.node names ${JSON.stringify(node)}, which is not a node of this document.`,
        expected: "a declared node id",
        actual: renderActual(node),
        hint: hintFor("unknown_node"),
      });
    }
  });
  return problems;
}

/**
 * Whether validation found every rule of `doc` fully checked (defining them cannot fail);
 * undefined when validation did not check this document's rules.
 */
export function rulesDefinable(doc: IRDocument): boolean | undefined {
  return checked.get(doc);
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

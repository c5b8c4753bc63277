import { toKeelError } from "../core/index.js";
// Parse-only entry points of the rule engine. Its public API (RuleEngine.defineRule) also builds
// the match network, which costs far more than parsing; until src/rules exports a parse-only
// function, validation reaches for the parser itself, here and nowhere else.
import { isKnownFunction } from "../rules/evaluate.js";
import { readForms } from "../rules/index.js";
import { parseDefrule } from "../rules/parse-constructs.js";
import type { IRDocument } from "./models/index.js";
import { hintFor, type Problem, renderActual } from "./problems.js";

/** Host functions a run's engine has besides the built-ins (see run/pack-actions.ts). */
const HOST_FUNCTIONS = new Set(["ir-action"]);

const PARSE_CONTEXT = {
  // A document names no templates: its facts (the state mirror, `assert` actions) are ordered.
  template: () => undefined,
  hasFunction: (name: string) => isKnownFunction(name) || HOST_FUNCTIONS.has(name),
};

/**
 * Parses every rule's `when` as the left-hand side of a CLIPS rule and returns a `rule_invalid`
 * problem at `/rules/<i>/when` for each that does not parse, with the line and column within the
 * `when` text. Run after the id stage (rule ids are slugs, hence valid CLIPS names).
 *
 * @example
 * checkRuleConditions(doc) // [{ code: "rule_invalid", path: "/rules/0/when", … }]
 */
export function checkRuleConditions(doc: IRDocument): Problem[] {
  const problems: Problem[] = [];
  for (let index = 0; index < doc.rules.length; index++) {
    const rule = doc.rules[index] as IRDocument["rules"][number];
    const reason = conditionProblem(rule.id, rule.when);
    if (reason !== undefined) problems.push(ruleProblem(index, rule.when, reason));
  }
  return problems;
}

/** The reason a rule's `when` does not parse, or undefined when it does. */
function conditionProblem(id: string, when: string): RuleReason | undefined {
  const unbalanced = parenthesisProblem(when);
  if (unbalanced !== undefined) return { message: unbalanced };
  // `when` on lines of its own: the parser's line L is line L - 1 of `when`.
  const source = `(defrule ${id}\n${when}\n=>)`;
  try {
    const forms = readForms(source);
    if (forms.length !== 1 || forms[0]?.type !== "list") {
      return { message: "it is not a list of conditions" };
    }
    const ast = parseDefrule(forms[0], { ...PARSE_CONTEXT });
    if (ast.actions.length > 0) {
      return {
        message: "it contains '=>': actions belong in the rule's `then` list",
        hint: "Keep only the conditions in `when`; write the actions as `then` entries.",
      };
    }
    return undefined;
  } catch (error) {
    return ruleReason(error, when);
  }
}

/**
 * Where `when`'s parentheses do not balance (outside strings and `;` comments), as a message;
 * checked first because the parser would see the rule's own parentheses close instead.
 */
function parenthesisProblem(when: string): string | undefined {
  let line = 1;
  let column = 0;
  const open: { line: number; column: number }[] = [];
  for (let i = 0; i < when.length; i++) {
    const ch = when[i];
    column++;
    if (ch === "\n") {
      line++;
      column = 0;
    } else if (ch === '"') {
      // Skip the string, honouring backslash escapes.
      for (i++; i < when.length && when[i] !== '"'; i++) {
        if (when[i] === "\\") i++;
        if (when[i] === "\n") {
          line++;
          column = 0;
        } else column++;
      }
      column++;
    } else if (ch === ";") {
      while (i + 1 < when.length && when[i + 1] !== "\n") i++;
    } else if (ch === "(") {
      open.push({ line, column });
    } else if (ch === ")" && open.pop() === undefined) {
      return `line ${line}, column ${column}: this ')' closes nothing.`;
    }
  }
  const unclosed = open[open.length - 1];
  return unclosed
    ? `line ${unclosed.line}, column ${unclosed.column}: this '(' is never closed.`
    : undefined;
}

/** Why a rule's conditions were refused: the message (position within `when`) and a hint. */
export interface RuleReason {
  message: string;
  hint?: string;
}

/**
 * A rule engine error (`RULES_PARSE`, whose message starts `line L, column C: `) as a reason
 * about `when`, with the position moved into the `when` text. `lineOffset` is how many lines the
 * generated source has before `when` starts, `columnOffset` the characters before it on its first
 * line; a position outside `when` is reported as its end.
 */
export function ruleReason(
  error: unknown,
  when: string,
  lineOffset = 1,
  columnOffset = 0,
): RuleReason {
  const keel = toKeelError(error);
  const line = keel.details.line;
  const column = keel.details.column;
  // The message reads `line L, column C: <what> (in defrule <id>). <hint>`: keep <what>.
  let text = keel.message;
  if (keel.hint && text.endsWith(` ${keel.hint}`)) text = text.slice(0, -keel.hint.length - 1);
  text = text.replace(/^line \d+, column \d+: /, "").replace(/ \(in defrule [^)]*\)(?=\.$)/, "");
  let where = "";
  if (typeof line === "number" && typeof column === "number") {
    const whenLine = line - lineOffset;
    const lines = when.split("\n").length;
    where =
      whenLine >= 1 && whenLine <= lines
        ? `line ${whenLine}, column ${whenLine === 1 ? column - columnOffset : column}: `
        : "at the end: ";
  }
  return { message: `${where}${text}`, ...(keel.hint ? { hint: keel.hint } : {}) };
}

/** The problem for rule `index` whose `when` was refused. */
export function ruleProblem(index: number, when: string, reason: RuleReason): Problem {
  return {
    code: "rule_invalid",
    path: `/rules/${index}/when`,
    message: `The rule's \`when\` is not valid CLIPS: ${reason.message}`,
    expected: "CLIPS conditions, e.g. (severity ?s&:(>= ?s 4)) (node-id triage)",
    actual: renderActual(when),
    hint: reason.hint ?? hintFor("rule_invalid"),
  };
}

/**
 * Parsing and checking rule definitions without defining them: what a validator needs (every
 * problem, placed within the definition's `when`), and a parse result an engine can define
 * later without parsing the text again.
 */
import { toKeelError } from "../core/index.js";
import type { RuleAst, Template } from "./ast.js";
import { buildsSurely } from "./build-check.js";
import type { RuleDefinition } from "./engine-types.js";
import { rulesLoadError } from "./errors.js";
import { isKnownFunction } from "./evaluate.js";
import { parseDefrule, parseDeftemplate } from "./parse-constructs.js";
import type { ParseContext } from "./parse-expr.js";
import { readForms, type SList } from "./reader.js";

/** A rule definition parsed by {@link checkRules}, ready for `RuleEngine.defineRule`. */
export interface ParsedRule {
  readonly name: string;
  readonly salience: number;
  /** The defrule text the definition stands for (what a snapshot records). */
  readonly source: string;
  readonly actions?: readonly unknown[];
  /**
   * True when the check covered everything defining the rule checks (only patterns and tests,
   * every variable bound before it is read): `defineRule` cannot refuse it, so a host may put
   * off defining it without putting off its errors. False: only `defineRule` can tell.
   */
  readonly definable: boolean;
}

/** Why a definition was refused, with the place within its `when` text. */
export interface RuleProblem {
  /** Index of the definition in the list given to {@link checkRules}. */
  readonly index: number;
  readonly rule: string;
  /** `actions_in_when`: `when` holds `=>` and actions; `invalid`: anything else. */
  readonly code: "invalid" | "actions_in_when";
  /** 1-based line and column within `when`; null when the problem is past its end. */
  readonly line: number | null;
  readonly column: number | null;
  /** What is wrong, without the position. */
  readonly message: string;
  readonly hint?: string;
}

/** The outcome of {@link checkRules}. */
export interface RuleCheck {
  /** The parsed definitions, in order (null where a definition has a problem). */
  readonly rules: readonly (ParsedRule | null)[];
  /** Every problem, in definition order. */
  readonly problems: readonly RuleProblem[];
}

/** Options of {@link checkRules}. */
export interface CheckRulesOptions {
  /** Host functions the rules may call besides the built-ins (registered on the engine later). */
  functions?: Iterable<string>;
  /**
   * False: do not keep the parses for `defineRule` (it parses the `source` again). A host that
   * only needs the verdict saves keeping every rule's syntax tree alive (default true).
   */
  keepParses?: boolean;
  /**
   * `deftemplate` constructs the rules are parsed against (the engine defines them before the
   * rules); without them every pattern is an ordered fact.
   */
  templates?: string;
  /**
   * The defglobals the rules may read (`?*name*`), or `"any"` when they are defined elsewhere
   * (a pack loaded before the rules): then a rule reading a global is parsed again, and checked,
   * when it is defined. `defglobal` constructs in `templates` are known too.
   */
  globals?: Iterable<string> | "any";
}

/** What an engine needs to define a parsed rule, kept out of the public type. */
interface Parsed {
  readonly ast: RuleAst;
  /** Functions the rule calls that are not built-ins: the engine must have them registered. */
  readonly hostFunctions: ReadonlySet<string>;
}

const parsedRules = new WeakMap<ParsedRule, Parsed>();

/** The host functions of a rule that calls none. */
const NO_FUNCTIONS: ReadonlySet<string> = new Set();

/**
 * Parses rule definitions as `RuleEngine.defineRule` would, without building them, and returns
 * every problem (never throws; `templates` must be valid deftemplates). Patterns are ordered facts
 * unless `templates` defines their relation.
 * What only building a rule finds (a variable a test reads but no pattern binds) is not checked
 * here: `defineRule` reports it.
 *
 * @example
 * const { problems, rules } = checkRules([{ name: "r", when: "(severity ?s&:(>= ?s 4))" }]);
 * problems; // []
 * engine.defineRule(rules[0]!); // no second parse
 */
export function checkRules(
  definitions: readonly RuleDefinition[],
  options: CheckRulesOptions = {},
): RuleCheck {
  const functions = new Set(options.functions ?? []);
  const keep = options.keepParses ?? true;
  const rules: (ParsedRule | null)[] = [];
  const problems: RuleProblem[] = [];
  // One parse context for every definition: the host functions the current one calls are
  // collected in `hostFunctions` (reset per definition; most call none, so most share one set).
  let hostFunctions: Set<string> | null = null;
  const templates = new Map<string, Template>();
  const anyGlobal = options.globals === "any";
  const globals = new Set(options.globals === "any" ? [] : (options.globals ?? []));
  // Set when the current definition reads a global the check cannot vouch for.
  let unknownGlobal = false;
  // Set when a query in the current definition names a template or class the check cannot see
  // (a class, or a template not given with the templates): the engine it is defined in decides.
  let unknownName = false;
  const ctx: ParseContext = {
    hasGlobal: (name) => {
      if (globals.has(name)) return true;
      if (anyGlobal) unknownGlobal = true;
      return anyGlobal;
    },
    template: (name) => templates.get(name),
    hasDeftemplate: (name) => {
      if (!templates.has(name)) unknownName = true;
      return true;
    },
    hasClass: () => {
      unknownName = true;
      return true;
    },
    hasFunction: (name) => {
      if (isKnownFunction(name)) return true;
      if (!functions.has(name)) return false;
      hostFunctions ??= new Set();
      hostFunctions.add(name);
      return true;
    },
  };
  for (const form of readForms(options.templates ?? "")) {
    if (form.type !== "list") continue;
    if (form.items[0]?.type === "atom" && form.items[0].text === "defglobal") {
      for (const item of form.items)
        if (item.type === "atom" && item.kind === "gvar") globals.add(item.text);
      continue;
    }
    const template = parseDeftemplate(form, ctx);
    templates.set(template.name, template);
  }
  for (let index = 0; index < definitions.length; index++) {
    const def = definitions[index] as RuleDefinition;
    const unbalanced = parenthesisProblem(def.when);
    if (unbalanced) {
      problems.push({ index, rule: def.name, code: "invalid", ...unbalanced });
      rules.push(null);
      continue;
    }
    hostFunctions = null;
    unknownGlobal = false;
    unknownName = false;
    ctx.construct = undefined;
    try {
      const { ast, source } = parseRuleDefinition(def, ctx);
      if (ast.actions.length > 0 && !def.then?.trim()) {
        problems.push({
          index,
          rule: def.name,
          code: "actions_in_when",
          line: null,
          column: null,
          message: "it contains '=>': `when` holds conditions only",
          hint: "Keep only the conditions in `when`; write actions in `then` or `actions`.",
        });
        rules.push(null);
        continue;
      }
      const salience = def.salience ?? 0;
      const unverified = unknownGlobal || unknownName;
      const definable = buildsSurely(ast) && !unverified;
      const rule: ParsedRule = def.actions
        ? { name: def.name, salience, source, actions: def.actions, definable }
        : { name: def.name, salience, source, definable };
      // A rule reading a global, or querying a template or class, defined elsewhere is parsed
      // again against the engine's.
      if (keep && !unverified) {
        parsedRules.set(rule, { ast, hostFunctions: hostFunctions ?? NO_FUNCTIONS });
      }
      rules.push(rule);
    } catch (error) {
      problems.push(ruleProblem(error, def, index));
      rules.push(null);
    }
  }
  return { rules, problems };
}

/**
 * The text `defineRule` parses for a definition: `when` on lines of its own (so a `;` comment
 * in it ends there, and its line L is the source's line L + 1).
 */
function ruleSource(def: RuleDefinition): string {
  return `(defrule ${def.name} (declare (salience ${def.salience ?? 0}))\n${def.when}\n=> ${def.then ?? ""})`;
}

/** Parses a definition (throws RULES_PARSE as `defineRule` does). */
export function parseRuleDefinition(
  def: RuleDefinition,
  ctx: ParseContext,
): { ast: RuleAst; source: string; form: SList } {
  const forms = readForms(ruleSource(def));
  const form = forms[0];
  if (forms.length !== 1 || form?.type !== "list") {
    throw rulesLoadError(forms[1]?.pos, "the conditions close the rule early", {
      hint: "Balance the parentheses of `when`.",
    });
  }
  return { ast: parseDefrule(form, ctx), source: form.source, form };
}

/** The parse result of a rule from {@link checkRules}, if the engine can define it as is. */
export function parsedRule(
  rule: ParsedRule,
  usable: (hostFunctions: ReadonlySet<string>) => boolean,
): RuleAst | undefined {
  const parsed = parsedRules.get(rule);
  return parsed && usable(parsed.hostFunctions) ? parsed.ast : undefined;
}

/**
 * The problem for an error `defineRule` threw on definition `def` (RULES_PARSE, whose message
 * starts `line L, column C: `), with the position moved into `def.when`.
 *
 * @example
 * try { engine.defineRule(def); } catch (e) { ruleProblem(e, def).line; }
 */
export function ruleProblem(error: unknown, def: RuleDefinition, index = 0): RuleProblem {
  const keel = toKeelError(error);
  const line = keel.details.line;
  const column = keel.details.column;
  // The message reads `line L, column C: <what> (in defrule <id>). <hint>`: keep <what>.
  let text = keel.message;
  if (keel.hint && text.endsWith(` ${keel.hint}`)) text = text.slice(0, -keel.hint.length - 1);
  text = text
    .replace(/^line \d+, column \d+: /, "")
    .replace(/ \(in defrule [^)]*\)(?=\.$)/, "")
    .replace(/\.$/, "");
  let at: { line: number | null; column: number | null } = { line: null, column: null };
  if (typeof line === "number" && typeof column === "number") {
    const whenLine = line - 1;
    if (whenLine >= 1 && whenLine <= def.when.split("\n").length) {
      at = { line: whenLine, column };
    }
  }
  return {
    index,
    rule: def.name,
    code: "invalid",
    ...at,
    message: text,
    ...(keel.hint ? { hint: keel.hint } : {}),
  };
}

/**
 * Where `when`'s parentheses do not balance (outside strings and `;` comments); checked first
 * because the parser would see the rule's own parentheses close instead.
 */
function parenthesisProblem(
  when: string,
): { line: number; column: number; message: string } | undefined {
  let line = 1;
  let column = 0;
  // The lines and columns of the '(' still open, as pairs.
  const open: number[] = [];
  for (let i = 0; i < when.length; i++) {
    const ch = when.charCodeAt(i);
    column++;
    if (ch === 10 /* \n */) {
      line++;
      column = 0;
    } else if (ch === 34 /* " */) {
      // Skip the string, honouring backslash escapes.
      for (i++; i < when.length && when.charCodeAt(i) !== 34; i++) {
        if (when.charCodeAt(i) === 92 /* \\ */) i++;
        if (when.charCodeAt(i) === 10) {
          line++;
          column = 0;
        } else column++;
      }
      column++;
    } else if (ch === 59 /* ; */) {
      while (i + 1 < when.length && when.charCodeAt(i + 1) !== 10) i++;
    } else if (ch === 40 /* ( */) {
      open.push(line, column);
    } else if (ch === 41 /* ) */) {
      if (open.length === 0) return { line, column, message: "this ')' closes nothing" };
      open.length -= 2;
    }
  }
  if (open.length === 0) return undefined;
  return {
    line: open[open.length - 2] as number,
    column: open[open.length - 1] as number,
    message: "this '(' is never closed",
  };
}

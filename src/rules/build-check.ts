/**
 * A sufficient condition, checked on a parsed rule without building it, for building it to
 * succeed: lets a host defer building a rule's network (see docs/ir.md) without deferring the
 * errors building would report. Deliberately narrow: a rule outside it may well build, but only
 * building it tells.
 */
import type { CE, Expr, FieldConstraint, RuleAst, Term } from "./ast.js";
import { type Compiled, type CompileOptions, compileExpr } from "./evaluate.js";
import { checkRuleConstraints } from "./rule-constraints.js";
import { FALSE } from "./values.js";

const BOUND: Compiled = () => FALSE;

/**
 * True when the network build cannot refuse `ast`: no actions, no dynamic salience, only pattern and test CEs (no
 * or/not/exists/forall, no fact-address variables, no multifield fields), every variable read
 * by a field or a test bound by an earlier field, and every expression compiling as the build
 * compiles it (arity, no `bind`), and no [RULECSTR1] constraint conflict.
 */
export function buildsSurely(ast: RuleAst): boolean {
  // A dynamic salience is evaluated when the rule is defined, which may fail.
  if (ast.actions.length > 0 || ast.salienceExpr !== undefined) return false;
  const bound = new Set<string>();
  // One set of compile options per rule, not one closure per expression.
  const opts: CompileOptions = { resolve: (name) => (bound.has(name) ? BOUND : null), rhs: false };
  for (const ce of ast.ces) if (!ceBuilds(ce, bound, opts)) return false;
  return matchable(ast);
}

/** Whether CLIPS's static constraint check ([RULECSTR1]) lets the rule be built. */
function matchable(ast: RuleAst): boolean {
  try {
    checkRuleConstraints(ast.ces, `defrule ${ast.name}`);
    return true;
  } catch {
    return false;
  }
}

function ceBuilds(ce: CE, bound: Set<string>, opts: CompileOptions): boolean {
  if (ce.type === "test") return exprBuilds(ce.expr, opts);
  // An object pattern's static check needs the classes, which only the engine knows.
  if (ce.type !== "pattern" || ce.addressVar !== null || ce.object) return false;
  if (!ce.template) return ce.fields.every((fc) => fieldBuilds(fc, bound, opts));
  for (const slot of ce.slots.values()) {
    for (const fc of slot) if (!fieldBuilds(fc, bound, opts)) return false;
  }
  return true;
}

function fieldBuilds(fc: FieldConstraint, bound: Set<string>, opts: CompileOptions): boolean {
  if (fc.multi) return false;
  // A field led by a new variable binds it (field-plan.ts): the rest of the field may read it.
  // `?x|b` binds nothing (lhs-variables.ts).
  const lead = fc.alts[0]?.[0];
  const leads = fc.alts.length === 1 || (fc.alts[0]?.length ?? 0) > 1;
  const binds = leads && lead?.kind === "var" && !lead.neg && !lead.mf && !bound.has(lead.name);
  if (binds) bound.add(lead.name);
  for (const alt of fc.alts) {
    for (const t of alt) {
      if (binds && t === lead) continue;
      if (!termBuilds(t, bound, opts)) return false;
    }
  }
  return true;
}

function termBuilds(t: Term, bound: ReadonlySet<string>, opts: CompileOptions): boolean {
  switch (t.kind) {
    case "lit":
      return true;
    case "var":
      return !t.mf && bound.has(t.name);
    default:
      return exprBuilds(t.expr, opts);
  }
}

/** Compiles `e` as the build would, every bound variable resolving: false where it throws. */
function exprBuilds(e: Expr, opts: CompileOptions): boolean {
  try {
    compileExpr(e, opts);
    return true;
  } catch {
    return false;
  }
}

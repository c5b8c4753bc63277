/**
 * Load-time check that a rule's right-hand side, or a deffunction's body, reads only variables
 * it has bound (CLIPS's [PRCCODE3]).
 */
import type { Expr, RuleAst } from "./ast.js";
import { rulesLoadError } from "./errors.js";

/**
 * Where `?var:slot` splits: the first colon with a name before it and a slot after it; -1 for
 * none. A trailing colon is part of the variable's name (`?x:` is the variable `x:`), as in
 * CLIPS's insqypsr.c.
 */
export function slotRefColon(name: string): number {
  const colon = name.indexOf(":");
  return colon > 0 && colon < name.length - 1 ? colon : -1;
}

/** Throws when an action reads a variable neither the left-hand side nor an earlier bind binds. */
export function checkRhsVariables(ast: RuleAst, scope: Map<string, unknown>): void {
  // As in a deffunction, a variable some bind sets may be read first ([PRCCODE5] when run).
  checkBodyVariables(ast.actions, scope.keys(), `defrule ${ast.name}`, "RHS of defrule", true);
}

/**
 * The same check for any body: `bound` holds what is bound before it (parameters), `where`
 * ends CLIPS's message (`RHS of defrule`, `deffunction`).
 */
export function checkBodyVariables(
  body: readonly Expr[],
  bound0: Iterable<string>,
  construct: string,
  where: string,
  bindsAnywhere = false,
): void {
  const bound = new Set<string>(bound0);
  // A deffunction's variable may be bound after it is read ([PRCCODE5] then, when it is run).
  if (bindsAnywhere) for (const name of bindNames(body)) bound.add(name);
  const visit = (e: Expr): void => {
    switch (e.k) {
      case "var":
        if (!bound.has(e.name) && !bound.has(e.name.slice(0, Math.max(0, slotRefColon(e.name))))) {
          throw rulesLoadError(e.pos, `variable ?${e.name} is not bound`, {
            construct,
            clips: `[PRCCODE3] Undefined variable ${e.name} referenced in ${where}.`,
            hint: "Bind it in a pattern on the left-hand side (or with bind before using it).",
          });
        }
        return;
      case "bind":
        e.value.forEach(visit);
        if (!e.global) bound.add(e.name);
        return;
      case "loop":
        visit(e.from);
        visit(e.to);
        if (e.v !== null) bound.add(e.v);
        e.body.forEach(visit);
        return;
      case "foreach":
        visit(e.list);
        bound.add(e.v);
        bound.add(`${e.v}-index`);
        e.body.forEach(visit);
        return;
      case "switch":
        visit(e.value);
        for (const c of e.cases) {
          visit(c.test);
          c.body.forEach(visit);
        }
        e.otherwise.forEach(visit);
        return;
      case "call":
        e.args.forEach(visit);
        return;
      case "make-instance":
        if (e.name) visit(e.name);
        if (e.duplicate?.to) visit(e.duplicate.to);
        visit(e.cls);
        for (const s of e.slots) {
          if (s.nameExpr) visit(s.nameExpr);
          s.values.forEach(visit);
        }
        return;
      case "query":
        for (const v of e.vars) {
          v.among.forEach(visit);
          bound.add(v.name);
        }
        visit(e.query);
        e.body.forEach(visit);
        return;
      case "if":
        visit(e.cond);
        e.thenDo.forEach(visit);
        e.elseDo.forEach(visit);
        return;
      case "while":
        visit(e.cond);
        e.body.forEach(visit);
        return;
      case "assert":
        for (const f of e.facts) {
          if (f.kind === "ordered") f.fields.forEach(visit);
          else for (const s of f.slots) s.values.forEach(visit);
        }
        return;
      case "modify":
      case "duplicate":
        visit(e.target);
        for (const s of e.slots) s.values.forEach(visit);
        return;
      default:
        return;
    }
  };
  body.forEach(visit);
}

/** The variables a `(bind ?v …)` anywhere in `body` binds. */
function bindNames(body: readonly Expr[]): string[] {
  const names: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    if (node === null || typeof node !== "object") return;
    const e = node as Record<string, unknown>;
    if (e.k === "bind" && e.global !== true && typeof e.name === "string") names.push(e.name);
    for (const [key, value] of Object.entries(e)) if (key !== "pos") visit(value);
  };
  visit(body);
  return names;
}

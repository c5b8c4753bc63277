/** Compiles a parsed defrule into the network and its right-hand side into closures. */

import { checkPatternAddresses } from "./address-check.js";
import type { RuleInfo } from "./agenda.js";
import type { CE, RuleAst } from "./ast.js";
import { expandOr } from "./disjuncts.js";
import { type Compiled, compileExpr } from "./evaluate.js";
import { checkLhsVariables } from "./lhs-variables.js";
import { constructKey } from "./module-scope.js";
import type { Token } from "./rete/memory.js";
import type { BuiltRule, Network } from "./rete/network.js";
import { tokenReader } from "./rete/pattern-context.js";
import { checkRhsConstraints } from "./rhs-constraints.js";
import { checkRhsVariables } from "./rhs-variables.js";
import { checkRuleConstraints, type ObjectSlotLookup } from "./rule-constraints.js";
import { type RuleEntry, rhsByBuilt } from "./rule-entry.js";
import { ruleComplexity } from "./strategy.js";

/** What the engine does when a rule's terminal gains or loses a token. */
export interface ActivationHooks {
  activate(entry: RuleEntry, info: RuleInfo, t: Token): void;
  deactivate(entry: RuleEntry, t: Token): void;
  /** Takes back what a rule that failed to compile had built (its activations, its nodes). */
  discard(entry: RuleEntry): void;
}

/**
 * Builds one network path per disjunct of the rule's `or`s (CLIPS makes one rule per disjunct
 * under one name) and compiles the actions against each path's variables.
 */
export function compileRule(
  ast: RuleAst,
  hostActions: readonly unknown[] | undefined,
  net: Network,
  hooks: ActivationHooks,
  dynamicSalience?: () => number,
  objectSlots?: ObjectSlotLookup,
): RuleEntry {
  // CLIPS's [ANALYSIS4] before building: a variable read before any CE binds it.
  checkLhsVariables(ast.ces, `defrule ${ast.name}`);
  checkPatternAddresses(ast.ces, `defrule ${ast.name}`);
  // Then its static constraint check: [RULECSTR1] for a pattern no fact can match.
  const lhs = checkRuleConstraints(ast.ces, `defrule ${ast.name}`, objectSlots);
  checkRhsConstraints(ast.actions, lhs, `defrule ${ast.name}`);
  const disjuncts: CE[][] = expandOr(ast.ces);
  const built: BuiltRule[] = [];
  const infos: RuleInfo[] = [];
  // Modules are namespaces: the entry and its activations carry the module-qualified key.
  const key = constructKey(ast.module, ast.name);
  const entry: RuleEntry = {
    name: key,
    info: {
      name: key,
      salience: ast.salience,
      display: [],
      disjunct: 0,
      ...(dynamicSalience ? { dynamicSalience } : {}),
    },
    built,
    disjuncts: infos,
    hostActions,
    source: ast.source,
    ...(ast.logical ? { logical: ast.logical } : {}),
  };
  try {
    for (const [disjunct, ces] of disjuncts.entries()) {
      const complexity = ruleComplexity(ces);
      const display: ("fact" | "star" | "none")[] = [];
      const leadingTest = ces[0]?.type === "test";
      const info: RuleInfo = {
        name: key,
        salience: ast.salience,
        ...(dynamicSalience ? { dynamicSalience } : {}),
        display,
        disjunct,
        leadingTest,
        complexity,
        ...(ast.module ? { module: ast.module } : {}),
        ...(ast.autoFocus ? { autoFocus: true } : {}),
      };
      const b = net.buildRule(ast.name, ces, hooks, entry, info, ast.logical ?? 0);
      display.push(...b.display);
      built.push(b);
      infos.push(info);
      rhsByBuilt.set(b, compileActions(ast, b));
    }
  } catch (error) {
    // Nothing is primed yet: the network takes back every disjunct's new nodes.
    net.abandonRule();
    throw error;
  }
  try {
    // Every disjunct is primed at once, as CLIPS resets a new rule's disjuncts together.
    net.primeRule();
  } catch (error) {
    hooks.discard(entry);
    throw error;
  }
  return entry;
}

/** The right-hand side against one disjunct's variables. */
function compileActions(ast: RuleAst, b: BuiltRule): Compiled[] {
  const scope = b.scope;
  const construct = `defrule ${ast.name}`;
  const rhs = ast.actions.map((a) =>
    compileExpr(a, {
      resolve: (name) => {
        const loc = scope.get(name);
        if (!loc) return null;
        const read = tokenReader(loc);
        // bind may rebind a left-hand-side variable for the rest of the actions.
        return (f) => f.rhs?.get(name) ?? read(f);
      },
      rhs: true,
      construct,
    }),
  );
  checkRhsVariables(ast, scope);
  return rhs;
}

/** Firing an activation: which rule and disjunct, its facts and bindings, its actions. */

import { isKeelError } from "../core/index.js";
import type { Activation } from "./agenda.js";
import { evaluationErrorHalt, haltedIn, takeEvaluationError } from "./clips-messages.js";
import { isControlSignal, ReturnSignal } from "./control.js";
import { rulesRuntimeError } from "./errors.js";
import { stepIn, stepOut } from "./eval-depth.js";
import type { Compiled, EvalHost, Frame } from "./evaluate.js";
import { type RuleLimits, ruleLimitError } from "./limits.js";
import { ObjectFact } from "./object-match.js";
import { matchAt, type Token } from "./rete/memory.js";
import type { BuiltRule } from "./rete/network.js";
import { tokenReader } from "./rete/pattern-context.js";
import { type RuleEntry, rhsByBuilt } from "./rule-entry.js";
import { toPlain, type Value } from "./values.js";

/** The rule of an activation and the disjunct (network path) that produced it. */
export function entryFor(
  rules: ReadonlyMap<string, RuleEntry>,
  a: Activation,
): { entry: RuleEntry; built: BuiltRule } {
  const entry = rules.get(a.rule.name) as RuleEntry;
  const built = entry.built[a.rule.disjunct] as BuiltRule;
  return { entry, built };
}

/** Readers of each disjunct's left-hand-side variables, compiled once. */
const readersByBuilt = new WeakMap<BuiltRule, [string, Compiled][]>();

/** The left-hand-side variables of an activation, as plain JSON. */
export function bindingsOf(
  built: BuiltRule,
  a: Activation,
  host: EvalHost,
): Record<string, unknown> {
  let readers = readersByBuilt.get(built);
  if (!readers) {
    readers = [...built.scope].map(([name, loc]) => [name, tokenReader(loc)]);
    readersByBuilt.set(built, readers);
  }
  const frame: Frame = { tok: a.token, local: null, rhs: null, host };
  // fromEntries defines own properties: a variable named `__proto__` stays a binding.
  return Object.fromEntries(readers.map(([name, read]) => [name, toPlain(read(frame))]));
}

/** Indices of the facts matched by the activation's positive patterns, in pattern order. */
/**
 * What an activation matched, in pattern order: the facts' indices and the names of the
 * instances its object patterns matched (an instance is in the network as a fact, whose tag is
 * no fact index a host could look up); `instances` is made only when there is one.
 */
export function firedMatches(a: Activation): { facts: number[]; instances?: string[] } {
  const display = a.rule.display;
  const facts: number[] = [];
  let instances: string[] | undefined;
  for (let t: Token | null = a.token; t !== null && t.depth > 0; t = t.parent) {
    if (display[t.depth - 1] !== "fact" || !t.am) continue;
    const fact = t.am.fact;
    if (!(fact instanceof ObjectFact)) facts.push(fact.factId);
    else if (instances === undefined) instances = [fact.instance.instanceName.name];
    else instances.unshift(fact.instance.instanceName.name);
  }
  facts.reverse();
  return instances === undefined ? { facts } : { facts, instances };
}

/** Readers of each disjunct's variables bound in object patterns (empty for most rules). */
const objectReadersByBuilt = new WeakMap<BuiltRule, [string, Compiled][]>();

/**
 * The values of the activation's object-pattern variables, read before the actions run: CLIPS's
 * actions see an instance's slots as they were matched, even after the actions change them.
 */
function objectBindings(built: BuiltRule, frame: Frame): Map<string, Value> | null {
  let readers = objectReadersByBuilt.get(built);
  if (!readers) {
    // Which patterns are object patterns is fixed per disjunct: learn it from the first token.
    readers = [];
    const tok = frame.tok as Token;
    for (const [name, loc] of built.scope) {
      if (loc.read && matchAt(tok, loc.slot)?.fact instanceof ObjectFact) {
        readers.push([name, tokenReader(loc)]);
      }
    }
    objectReadersByBuilt.set(built, readers);
  }
  if (readers.length === 0) return null;
  const values = new Map<string, Value>();
  for (const [name, read] of readers) values.set(name, read(frame));
  return values;
}

/**
 * Runs the rule's actions; a runtime error is reported with the rule's name. True when a
 * (return) ended them (the engine then takes the rule's module out of focus, as CLIPS does).
 */
export function runActions(
  entry: RuleEntry,
  built: BuiltRule,
  a: Activation,
  host: EvalHost,
  stopped: () => boolean,
): boolean {
  const frame: Frame = { tok: a.token, local: null, rhs: null, host };
  frame.rhs = objectBindings(built, frame);
  const rhs = rhsByBuilt.get(built) ?? [];
  // The actions run one evaluation level deeper (CLIPS's ED in traces).
  stepIn();
  try {
    for (const action of rhs) {
      action(frame);
      if (takeEvaluationError()) throw evaluationErrorHalt();
      if (stopped()) break;
    }
  } catch (e) {
    // (return) or a (break) outside any loop ends the rule's actions.
    if (isControlSignal(e)) return e instanceof ReturnSignal;
    if (isKeelError(e) && e.code === "RULES_LIMIT" && e.details.rule === undefined) {
      throw ruleLimitError(
        e.details.limit as keyof RuleLimits,
        e.details.value as number,
        entry.name,
        e.details.context as string | undefined,
      );
    }
    if (isKeelError(e) && e.code === "RULES_RUNTIME" && e.details.rule === undefined) {
      throw haltedIn(
        rulesRuntimeError(e.message.replace(/\.$/, ""), {
          rule: entry.name,
          clips: e.details.clips as string | undefined,
        }),
        `defrule ${entry.name}`,
      );
    }
    throw haltedIn(e, `defrule ${entry.name}`);
  } finally {
    stepOut();
  }
  return false;
}

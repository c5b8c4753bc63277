/**
 * CLIPS's truth-maintenance listings: `(dependencies f)` prints the partial matches that give
 * fact `f` logical support, newest first, one a line (`f-1,*,f-2`: `*` for a not); `(dependents
 * f)` prints the facts and instances whose support includes `f`. Either prints `None` when there
 * are none; an instance (its fact in the network) has both lists as a fact does.
 *
 * @example
 * // (defrule r (logical (a)) => (assert (b))) (assert (a)) (run)
 * // (dependencies 2) prints "f-1\n"; (dependents 1) prints "f-2\n"
 */
import { evaluationErrorSeen } from "./clips-messages.js";
import { rulesRuntimeError } from "./errors.js";
import type { Fact } from "./facts.js";
import { matchesOf, type Token } from "./rete/memory.js";
import {
  formatValue,
  isFactRef,
  isInstanceName,
  isInstanceRef,
  isSymbol,
  type Value,
  VOID,
} from "./values.js";

/** What the commands read from the engine. */
export interface DependencyHost {
  /** The live fact with index `id`, if any. */
  fact(id: number): Fact | undefined;
  /** The fact standing for the live instance a name, symbol or address designates, or null. */
  instance(v: Value): Fact | null;
  /** Every live instance (as its fact) and fact, in the order CLIPS lists dependents. */
  facts(): readonly Fact[];
  /** The partial matches giving `fact` logical support, newest first. */
  supportOf(fact: Fact): readonly Token[];
  print(text: string): void;
}

/** The commands' names. */
export const DEPENDENCY_COMMANDS: ReadonlySet<string> = new Set(["dependencies", "dependents"]);

/** Runs `(dependencies x)` or `(dependents x)` (arity is checked by the caller). */
export function dependencyCommand(host: DependencyHost, name: string, arg: Value): Value {
  // An argument that failed to evaluate (its message printed): CLIPS lists nothing.
  if (evaluationErrorSeen()) return VOID;
  const entity = entityOf(host, name, arg);
  if (name === "dependencies") {
    const support = host.supportOf(entity);
    host.print(support.length ? support.map((t) => `${tokenText(t)}\n`).join("") : "None\n");
    return VOID;
  }
  const dependents = host
    .facts()
    .filter((f) => host.supportOf(f).some((t) => holds(t, entity)))
    .map((f) => f.label());
  host.print(dependents.length ? `${dependents.join(",")}\n` : "None\n");
  return VOID;
}

/** The fact or instance `arg` designates; CLIPS's message when there is none. */
function entityOf(host: DependencyHost, name: string, arg: Value): Fact {
  if (isFactRef(arg)) {
    const fact = host.fact(arg.factId);
    if (fact) return fact;
    throw notFound("fact", `f-${arg.factId}`);
  }
  if (typeof arg === "number") {
    const fact = host.fact(arg);
    if (fact) return fact;
    throw notFound("fact", `f-${arg}`);
  }
  if (isSymbol(arg) || isInstanceName(arg) || isInstanceRef(arg)) {
    const inst = host.instance(arg);
    if (inst) return inst;
    const text = isInstanceRef(arg)
      ? arg.instanceName.name
      : formatValue(arg).replace(/^\[|\]$/g, "");
    throw notFound("instance", text);
  }
  throw rulesRuntimeError(`${name} expects a fact or an instance`, {
    clips: `[ARGACCES5] Function ${name} expected argument #1 to be of type instance address, instance name, fact address, integer, or symbol`,
  });
}

function notFound(kind: string, text: string): Error {
  return rulesRuntimeError(`unable to find ${kind} ${text}`, {
    clips: `[PRNTUTIL1] Unable to find ${kind} ${text}.`,
  });
}

/** A partial match as CLIPS prints it: its facts' labels, `*` for a not, comma-separated. */
function tokenText(t: Token): string {
  return matchesOf(t, t.depth)
    .map((m) => (m ? m.fact.label() : "*"))
    .join(",");
}

function holds(t: Token, fact: Fact): boolean {
  return matchesOf(t, t.depth).some((m) => m?.fact === fact);
}

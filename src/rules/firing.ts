/** Firing an activation: which rule and disjunct, its facts and bindings, its actions. */
import { isKeelError } from "../core/index.js";
import type { Activation } from "./agenda.js";
import { rulesRuntimeError } from "./errors.js";
import type { EvalHost, Frame } from "./evaluate.js";
import type { BuiltRule } from "./rete/network.js";
import { tokenReader } from "./rete/pattern.js";
import { type RuleEntry, rhsByBuilt } from "./rule-entry.js";
import { toPlain } from "./values.js";

/** The rule of an activation and the disjunct (network path) that produced it. */
export function entryFor(
  rules: ReadonlyMap<string, RuleEntry>,
  a: Activation,
): { entry: RuleEntry; built: BuiltRule } {
  const entry = rules.get(a.rule.name) as RuleEntry;
  const built =
    entry.built.find((b) => b.display === a.rule.display) ?? (entry.built[0] as BuiltRule);
  return { entry, built };
}

/** The left-hand-side variables of an activation, as plain JSON. */
export function bindingsOf(
  built: BuiltRule,
  a: Activation,
  host: EvalHost,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const frame: Frame = { tok: a.token.matches, local: null, rhs: null, host };
  for (const [name, loc] of built.scope) out[name] = toPlain(tokenReader(loc)(frame));
  return out;
}

/** Indices of the facts matched by the activation's positive patterns, in pattern order. */
export function firedFacts(a: Activation): number[] {
  const facts: number[] = [];
  a.token.matches.forEach((m, i) => {
    if (a.rule.display[i] === "fact" && m) facts.push(m.fact.factId);
  });
  return facts;
}

/** Runs the rule's actions; a runtime error is reported with the rule's name. */
export function runActions(
  entry: RuleEntry,
  built: BuiltRule,
  a: Activation,
  host: EvalHost,
  stopped: () => boolean,
): void {
  const frame: Frame = { tok: a.token.matches, local: null, rhs: null, host };
  const rhs = rhsByBuilt.get(built) ?? [];
  try {
    for (const action of rhs) {
      action(frame);
      if (stopped()) break;
    }
  } catch (e) {
    if (isKeelError(e) && e.code === "RULES_RUNTIME" && e.details.rule === undefined) {
      throw rulesRuntimeError(e.message.replace(/\.$/, ""), {
        rule: entry.name,
        clips: e.details.clips as string | undefined,
      });
    }
    throw e;
  }
}

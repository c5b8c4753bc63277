import type { Activation } from "./agenda.js";
import type { Fact } from "./facts.js";
import { bareName } from "./module-scope.js";
import { matchesOf } from "./rete/memory.js";

/** `f-1     (a b)`: the index padded as CLIPS pads it. */
export function factLine(fact: Fact): string {
  return `${`f-${fact.factId}`.padEnd(7)} ${fact.toString()}`;
}

function total(n: number, noun: string): string {
  return `For a total of ${n} ${noun}${n === 1 ? "" : "s"}.`;
}

/** The output of `(facts [start [end [max]]])`. */
export function factsListing(facts: readonly Fact[], start = -1, end = -1, max = -1): string {
  let shown = facts.filter((f) => f.factId >= start && (end < 0 || f.factId <= end));
  if (max >= 0) shown = shown.slice(0, max);
  if (shown.length === 0) return "";
  return `${shown.map(factLine).join("\n")}\n${total(shown.length, "fact")}\n`;
}

/** The fact part of an agenda line: `f-1,*,f-2`, or `*` when the rule has no pattern. */
export function activationFacts(a: Activation): string {
  const parts: string[] = a.rule.leadingTest ? ["*"] : [];
  const matches = matchesOf(a.token, a.rule.display.length);
  a.rule.display.forEach((d, i) => {
    if (d === "none") return;
    const m = matches[i];
    parts.push(d === "fact" && m ? m.fact.label() : "*");
  });
  return parts.length ? parts.join(",") : "*";
}

/** One activation as `(agenda)` lists it: `0      r: f-1,f-2`. */
export function agendaLine(a: Activation): string {
  return `${String(a.salience).padEnd(6)} ${bareName(a.rule.name)}: ${activationFacts(a)}`;
}

/** The output of `(agenda)`. */
export function agendaListing(acts: readonly Activation[]): string {
  if (acts.length === 0) return "";
  const lines = acts.map(agendaLine);
  return `${lines.join("\n")}\n${total(acts.length, "activation")}\n`;
}

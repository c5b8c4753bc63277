import { KeelError } from "../../core/index.js";
import type { FactInput, RuleEngine } from "../../rules/index.js";
import { parseSlots } from "../slots.js";
import { retractMatching, toAtom } from "./facts.js";
import { withQueuedActions } from "./pack-actions.js";
import { type Decision, decide } from "./routing.js";

/** Rounds of firings whose `assert`/`retract` actions wake more rules, before the step fails. */
export const MAX_ROUNDS = 100;

/**
 * Runs the engine to quiescence, applying `assert`/`retract` effects as they come. Rules whose
 * effects still wake rules after MAX_ROUNDS rounds (two rules undoing each other) fail the step
 * with RULES_LIMIT naming them, rather than stop silently as if they had settled.
 */
export function runRules(engine: RuleEngine): Decision {
  const total: Decision = { overridden: [], effects: [], fired: [] };
  for (let round = 0; ; round++) {
    const firings = withQueuedActions(engine, engine.run());
    if (firings.length === 0) break;
    if (round >= MAX_ROUNDS) {
      const rules = [...new Set(firings.map((f) => f.rule))];
      throw new KeelError(
        "RULES_LIMIT",
        `Rules ${rules.join(", ")} still assert or retract facts that wake rules after ${MAX_ROUNDS} rounds: they undo each other and never settle.`,
        {
          details: { rule: rules[0], rules, limit: "rounds", value: MAX_ROUNDS },
          hint: "Guard the assert/retract actions so each rule's effect happens once (a fact that records it, or a condition its own effect makes false).",
        },
      );
    }
    for (const firing of firings)
      total.fired?.push({ rule: firing.rule, actions: firing.actions ?? [] });
    const decision = decide(firings);
    if (!total.winner && decision.winner) total.winner = decision.winner;
    else if (decision.winner) total.overridden.push(decision.winner);
    total.overridden.push(...decision.overridden);
    for (const { rule, action: effect } of decision.effects) {
      if (effect.kind === "assert") {
        const slots = parseSlots(effect.slots);
        // Validation refuses such slots (invalid_slots); this guards documents that skipped it.
        if (!slots.ok) {
          throw new KeelError(
            "RULES_RUNTIME",
            `Rule ${rule}: the slots of assert "${effect.fact}" are ${slots.reason}.`,
            {
              details: { rule, fact: effect.fact, slots: effect.slots },
              hint: 'Write slots as the JSON text of an object, or "" (run `keel ir validate`).',
            },
          );
        }
        engine.assert(assertedFact(engine, effect.fact, slots.slots));
      } else {
        retractMatching(engine, effect.pattern);
      }
    }
    if (decision.effects.length === 0) break;
  }
  return total;
}

/**
 * The fact an `assert` action adds: a template fact when the engine has a template of that name
 * (template-style documents, packs), else the ordered fact of the slot values in order.
 */
function assertedFact(engine: RuleEngine, fact: string, slots: Record<string, unknown>): FactInput {
  if (engine.templateNames().includes(fact)) {
    const values: Record<string, unknown> = {};
    for (const [slot, value] of Object.entries(slots)) values[slot] = toAtom(value);
    return { template: fact, slots: values };
  }
  return { relation: fact, fields: Object.values(slots).map(toAtom) };
}

import type { RuleEngine } from "../../rules/index.js";
import { retractMatching, toAtom } from "./facts.js";
import { withQueuedActions } from "./pack-actions.js";
import { type Decision, decide } from "./routing.js";

const MAX_ROUNDS = 100;

/** Runs the engine to quiescence, applying `assert`/`retract` effects as they come. */
export function runRules(engine: RuleEngine): Decision {
  const total: Decision = { overridden: [], effects: [] };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const firings = withQueuedActions(engine, engine.run());
    if (firings.length === 0) break;
    const decision = decide(firings);
    if (!total.winner && decision.winner) total.winner = decision.winner;
    else if (decision.winner)
      total.overridden.push({ rule: decision.winner.rule, kind: decision.winner.action.kind });
    total.overridden.push(...decision.overridden);
    for (const effect of decision.effects) {
      if (effect.kind === "assert") {
        const slots =
          effect.slots === "" ? {} : (JSON.parse(effect.slots) as Record<string, unknown>);
        engine.assert({ relation: effect.fact, fields: Object.values(slots).map(toAtom) });
      } else {
        retractMatching(engine, effect.pattern);
      }
    }
    if (decision.effects.length === 0) break;
  }
  return total;
}

/** An interrupt timeout in milliseconds: seconds, or an ISO 8601 duration without years/months. */
export function timeoutMillis(timeout: number | string | null): number | null {
  if (timeout === null) return null;
  if (typeof timeout === "number") return timeout * 1000;
  const match =
    /^(-)?P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(
      timeout,
    );
  if (!match) return null;
  const [, sign, w, d, h, m, s] = match;
  const seconds =
    Number(w ?? 0) * 604800 +
    Number(d ?? 0) * 86400 +
    Number(h ?? 0) * 3600 +
    Number(m ?? 0) * 60 +
    Number(s ?? 0);
  return (sign ? -1 : 1) * seconds * 1000;
}

import type { Firing } from "../../rules/index.js";
import type { Action } from "../models/index.js";

/** One recorded transition of a run: from where, to where, which rule, and why. */
export interface Transition {
  from: string;
  to: string;
  rule: string | null;
  reason: string;
  /** Routing actions of rules that fired in the same step and lost, whole (see docs/ir.md). */
  overridden?: Overridden[];
}

/** A routing action that lost to the step's winner, with the rule that asked for it. */
export interface Overridden {
  rule: string;
  action: RoutingAction;
}

/** Actions that decide where the run goes next; the others (`assert`, `retract`) always apply. */
export type RoutingAction = Exclude<Action, { kind: "assert" } | { kind: "retract" }>;

/** The outcome of a step's firings: the winning routing action, if any, and the losers. */
export interface Decision {
  winner?: { rule: string; action: RoutingAction };
  overridden: Overridden[];
  /** The `assert` and `retract` actions of every firing, with the rule they come from. */
  effects: { rule: string; action: Extract<Action, { kind: "assert" } | { kind: "retract" }> }[];
  /** Every firing of the step, in order, with its actions (what a governed run audits). */
  fired?: { rule: string; actions: readonly unknown[] }[];
}

/**
 * Priority when several rules fire in one step: rules are given salience by declaration order
 * (the first declared rule has the highest), so the engine fires them in that order; the first
 * routing action of the first firing rule wins, and every other routing action is recorded as
 * overridden. `assert` and `retract` actions of every firing apply, in firing order.
 */
export function decide(firings: readonly Firing[]): Decision {
  const decision: Decision = { overridden: [], effects: [] };
  for (const firing of firings) {
    for (const action of (firing.actions ?? []) as Action[]) {
      if (action.kind === "assert" || action.kind === "retract") {
        decision.effects.push({ rule: firing.rule, action });
      } else if (decision.winner === undefined) {
        decision.winner = { rule: firing.rule, action };
      } else {
        decision.overridden.push({ rule: firing.rule, action });
      }
    }
  }
  return decision;
}

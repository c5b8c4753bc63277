import { Command, END, interrupt, type RunConfig } from "../../graph/index.js";
import type { Arrive, GraphState } from "./arrival.js";
import type { IrGovernance } from "./governance.js";
import { timedOut } from "./run-state.js";
import { assertStateUpdate, type StateShape } from "./state.js";

/** The node an `interrupt` action routes to; it waits for the answer. */
export const WAIT = "__ir_wait__";

type Observe = (command: Command, config: RunConfig) => Promise<Command>;

/**
 * The wait node: pauses the run with the interrupt's prompt, payload, capability and deadline
 * (graph `interrupt()`, so a checkpointer is needed). The answer, an object, is a state update
 * and the run falls through from the node that asked; an answer after the deadline takes
 * `on_timeout` instead (`halt` ends the run, `goto:<node>` goes there). Either way the run moves
 * on through `arrive`, so a node that opens a parallel block fans out.
 *
 * In a governed run the question is an Approval: the answer is the one its decider gave, a
 * denial ends the run (fail-closed: nothing after the question runs), and an approval that
 * expired takes `on_timeout`.
 */
export function waitNode(
  shape: StateShape,
  after: (id: string) => string,
  arrive: Arrive,
  governance?: IrGovernance,
  observe?: Observe,
) {
  return async (raw: unknown, config: RunConfig): Promise<Command> => {
    const state = raw as GraphState;
    const pending = state.__ir.pending;
    if (!pending) return new Command({ goto: END });
    const { action } = pending;
    const question = {
      prompt: action.prompt,
      payload: action.interrupt_payload,
      requested_capability: action.requested_capability,
      timeout: action.timeout,
      deadline_at: pending.deadline,
      node: pending.from,
      rule: pending.rule,
    };
    const cleared = { ...state.__ir, pending: null };
    const move = (to: string, reason: string, update: Record<string, unknown>) =>
      arrive({ from: WAIT, to, rule: pending.rule, reason, state, update, ir: cleared });
    const onTimeout = () =>
      move(
        action.on_timeout === "halt" ? END : action.on_timeout.slice("goto:".length),
        "interrupt timed out",
        {},
      );
    const answered = (answer: unknown) => {
      const update =
        answer !== null && typeof answer === "object" && !Array.isArray(answer)
          ? (answer as Record<string, unknown>)
          : {};
      assertStateUpdate(shape, update, "the interrupt's answer");
      return move(after(pending.from), "interrupt answered", update);
    };
    if (governance?.wait && observe) {
      // The n-th transition of the thread names this wait, the same on every re-execution.
      const wait = {
        key: `wait@${state.__ir_transitions.length}`,
        node: pending.from,
        rule: pending.rule,
        action,
        deadline: pending.deadline,
      };
      for (;;) {
        const decision = await governance.wait(wait, config);
        if (decision.status === "pending") {
          // Resumed: the node runs again from its start, so the decision is read again.
          interrupt({ ...question, ...decision.pause });
          continue;
        }
        if (decision.status === "expired") return observe(onTimeout(), config);
        if (decision.status === "denied") {
          const why = decision.reason ? `: ${decision.reason}` : "";
          return observe(move(END, `interrupt denied by ${decision.by}${why}`, {}), config);
        }
        return observe(answered(decision.answer), config);
      }
    }
    const answer = interrupt(question);
    if (timedOut(pending)) return onTimeout();
    return answered(answer);
  };
}

import { Command, END, interrupt } from "../../graph/index.js";
import { type IrRunState, timedOut } from "./run-state.js";
import { assertStateUpdate, type StateShape } from "./state.js";

/** The node an `interrupt` action routes to; it waits for the answer. */
export const WAIT = "__ir_wait__";

type WaitState = Record<string, unknown> & { __ir: IrRunState };

/**
 * The wait node: pauses the run with the interrupt's prompt, payload, capability and deadline
 * (graph `interrupt()`, so a checkpointer is needed). The answer, an object, is a state update
 * and the run falls through from the node that asked; an answer after the deadline takes
 * `on_timeout` instead (`halt` ends the run, `goto:<node>` goes there).
 */
export function waitNode(shape: StateShape, after: (id: string) => string) {
  return (raw: unknown): Command => {
    const state = raw as WaitState;
    const pending = state.__ir.pending;
    if (!pending) return new Command({ goto: END });
    const { action } = pending;
    const answer = interrupt({
      prompt: action.prompt,
      payload: action.interrupt_payload,
      requested_capability: action.requested_capability,
      timeout: action.timeout,
      deadline_at: pending.deadline,
      node: pending.from,
      rule: pending.rule,
    });
    const cleared = { ...state.__ir, pending: null };
    if (timedOut(pending)) {
      const to = action.on_timeout === "halt" ? END : action.on_timeout.slice("goto:".length);
      return new Command({
        update: {
          __ir: cleared,
          __ir_transitions: [{ from: WAIT, to, rule: pending.rule, reason: "interrupt timed out" }],
        },
        goto: to,
      });
    }
    const update =
      answer !== null && typeof answer === "object" && !Array.isArray(answer)
        ? (answer as Record<string, unknown>)
        : {};
    assertStateUpdate(shape, update, "the interrupt's answer");
    const to = after(pending.from);
    return new Command({
      update: {
        ...update,
        __ir: cleared,
        __ir_transitions: [{ from: WAIT, to, rule: pending.rule, reason: "interrupt answered" }],
      },
      goto: to,
    });
  };
}

import { Command, END, interrupt } from "../../graph/index.js";
import type { Arrive, GraphState } from "./arrival.js";
import { timedOut } from "./run-state.js";
import { assertStateUpdate, type StateShape } from "./state.js";

/** The node an `interrupt` action routes to; it waits for the answer. */
export const WAIT = "__ir_wait__";

/**
 * The wait node: pauses the run with the interrupt's prompt, payload, capability and deadline
 * (graph `interrupt()`, so a checkpointer is needed). The answer, an object, is a state update
 * and the run falls through from the node that asked; an answer after the deadline takes
 * `on_timeout` instead (`halt` ends the run, `goto:<node>` goes there). Either way the run moves
 * on through `arrive`, so a node that opens a parallel block fans out.
 */
export function waitNode(shape: StateShape, after: (id: string) => string, arrive: Arrive) {
  return (raw: unknown): Command => {
    const state = raw as GraphState;
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
      return arrive({
        from: WAIT,
        to,
        rule: pending.rule,
        reason: "interrupt timed out",
        state,
        update: {},
        ir: cleared,
      });
    }
    const update =
      answer !== null && typeof answer === "object" && !Array.isArray(answer)
        ? (answer as Record<string, unknown>)
        : {};
    assertStateUpdate(shape, update, "the interrupt's answer");
    return arrive({
      from: WAIT,
      to: after(pending.from),
      rule: pending.rule,
      reason: "interrupt answered",
      state,
      update,
      ir: cleared,
    });
  };
}

/**
 * `return` and `break` leave a deffunction, a rule's actions or a loop from deep inside nested
 * expressions; they travel as thrown signals (never errors: nothing converts them to KeelError).
 */
import type { Value } from "./values.js";

/** Thrown by `(return [value])`; caught by the deffunction, rule or command running it. */
export class ReturnSignal {
  constructor(readonly value: Value) {}
}

/** Thrown by `(break)`; caught by the innermost while, loop-for-count, progn$ or foreach. */
export class BreakSignal {}

/** True for either signal (code that converts errors must let them pass). */
export function isControlSignal(e: unknown): boolean {
  return e instanceof ReturnSignal || e instanceof BreakSignal;
}

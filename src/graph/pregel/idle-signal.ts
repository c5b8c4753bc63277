import { getEventListeners } from "node:events";

/**
 * The `config.signal` a node gets when the run has none (no `signal`, `timeout` or
 * `stepTimeout`): LangGraph.js always hands nodes a signal, and code written for it calls
 * `config.signal.addEventListener` unguarded. Such a run has nothing that could abort it, so the
 * signal never fires, and one is shared by every run: an `AbortController` costs Node 20 about
 * 7 µs, more than a whole small step. A run that starts while listeners are still attached (a
 * node added one and never removed it) gets a fresh one, so leaked listeners never pile up.
 *
 * @example
 * const signal = idleSignal(); // at the start of a run without a signal of its own
 * isIdleSignal(signal); // true: the engine treats it as "no signal"
 */
let shared = new AbortController().signal;
const idle = new WeakSet<AbortSignal>([shared]);

/** The never-firing signal for a run that starts now. */
export function idleSignal(): AbortSignal {
  if (getEventListeners(shared, "abort").length > 0) {
    shared = new AbortController().signal;
    idle.add(shared);
  }
  return shared;
}

/** True for a signal `idleSignal` made: it never fires, so the engine need not watch it. */
export function isIdleSignal(signal: AbortSignal | undefined): boolean {
  return signal !== undefined && idle.has(signal);
}

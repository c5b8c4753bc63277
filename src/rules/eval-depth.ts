/**
 * CLIPS's evaluation depth (`CurrentEvaluationDepth`), which `(watch deffunctions)` prints as
 * `ED:n`: 0 for a top-level command, one more inside each rule's actions, deffunction call and
 * generic function method (loops add none, as CLIPS 6.30 shows). Keel evaluates
 * synchronously, so one counter serves (like the evaluation-error flag of clips-messages.ts);
 * each step in is paired with its step out in a `finally`.
 */
let depth = 0;

/** The current evaluation depth. */
export function evaluationDepth(): number {
  return depth;
}

/** One level deeper; pair with {@link stepOut} in a `finally` (for hot paths: no closure). */
export function stepIn(): void {
  depth++;
}

/** Back one level. */
export function stepOut(): void {
  depth--;
}

/** Runs `fn` one evaluation level deeper. */
export function deeper<T>(fn: () => T): T {
  depth++;
  try {
    return fn();
  } finally {
    depth--;
  }
}

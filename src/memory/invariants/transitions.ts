/** A stored record as the transition check compares it (wire names). */
export interface TransitionRecord {
  kind?: string;
  status?: string;
  content?: string;
  source?: string;
  target?: string;
  context?: Record<string, unknown>;
}

/** The outcome of a transition check. */
export type TransitionCheck = { allowed: true } | { allowed: false; message: string };

const CORE_FIELDS = ["target", "content", "source", "kind"] as const;
const CORE_CONTEXT = ["rationale", "target", "compressive_rationale"] as const;

/** A typo fix: at most 5 characters longer or shorter, and more than 10 leading characters kept. */
function minorEdit(a: unknown, b: unknown): boolean {
  if (typeof a !== "string" || typeof b !== "string" || !a || !b) return a === b;
  if (Math.abs(a.length - b.length) > 5) return false;
  let common = 0;
  for (let i = 0; i < Math.min(a.length, b.length, 20) && a[i] === b[i]; i++) common++;
  return common > 10;
}

/**
 * Invariant I1: a record's core never changes. Kind, content, source and target are fixed
 * (content may take a typo fix; a field that was missing may be filled), and so are the
 * context's rationale and target, except on proposals (hypotheses evolve) and while enrichment
 * is pending. A superseded decision never becomes active again.
 *
 * @example
 * validateTransition(old, { ...old, status: "superseded" }) // { allowed: true }
 */
export function validateTransition(
  before: TransitionRecord,
  after: TransitionRecord,
): TransitionCheck {
  const oldCtx = before.context ?? {};
  const newCtx = after.context ?? {};
  const proposal = before.kind === "proposal";
  const pending = oldCtx.enrichment_status === "pending";
  for (const field of CORE_FIELDS) {
    const a = before[field];
    const b = after[field];
    if (a === b || proposal) continue;
    if (field === "content" && (minorEdit(a, b) || pending)) continue;
    if (a === undefined && b !== undefined) continue;
    return {
      allowed: false,
      message: `I1 Violation: Core field '${field}' is immutable. Change rejected.`,
    };
  }
  for (const field of CORE_CONTEXT) {
    if (oldCtx[field] === newCtx[field] || proposal) continue;
    if (field !== "target" && pending) continue;
    return {
      allowed: false,
      message: `I1 Violation: Semantic context field '${field}' is immutable. Change rejected.`,
    };
  }
  if (before.kind === "decision" && oldCtx.status === "superseded" && newCtx.status === "active") {
    return {
      allowed: false,
      message: "I1 Violation: Cannot revert status from 'superseded' back to 'active'.",
    };
  }
  return { allowed: true };
}

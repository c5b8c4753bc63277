import { isSemanticKind } from "../models/enums.js";
import type { MemoryDecision, ResolutionIntent } from "../models/requests.js";

/** A Python-style list rendering, as the reference writes ids in its messages. */
export function pyList(items: readonly string[]): string {
  return `[${items.map((item) => `'${item}'`).join(", ")}]`;
}

/**
 * Whether a resolution intent resolves the conflicts: `abort` never does; otherwise it must name
 * every conflicting id (more is fine).
 *
 * @example
 * validateIntent({ resolution_type: "supersede", target_decision_ids: ["a"] }, ["a", "b"]) // false
 */
export function validateIntent(
  intent: Pick<ResolutionIntent, "resolution_type" | "target_decision_ids">,
  conflicts: readonly string[],
): boolean {
  if (intent.resolution_type === "abort") return false;
  const named = new Set(intent.target_decision_ids);
  return conflicts.every((id) => named.has(id));
}

/**
 * Routes an event: semantic kinds to the semantic store, the rest to the episodic one. A
 * decision on a target with active decisions needs an intent covering all of them.
 *
 * @example
 * routeEvent({ kind: "error", target: null, conflicts: [], intent: null }).store_type // "episodic"
 */
export function routeEvent(input: {
  kind: string;
  target: string | null;
  conflicts: readonly string[];
  intent: Pick<ResolutionIntent, "resolution_type" | "target_decision_ids"> | null;
}): MemoryDecision {
  const store = isSemanticKind(input.kind) ? "semantic" : "episodic";
  if (input.kind === "decision" && input.conflicts.length > 0) {
    if (input.intent === null) {
      return refused(
        `CONFLICT: Active decisions for target '${input.target ?? ""}' exist: ${pyList(input.conflicts)}. ResolutionIntent required.`,
      );
    }
    if (!validateIntent(input.intent, input.conflicts)) {
      return refused(
        `CONFLICT: Provided ResolutionIntent is invalid or does not cover all conflicts: ${pyList(input.conflicts)}.`,
      );
    }
  }
  return {
    should_persist: true,
    store_type: store,
    reason: `Accepted ${input.kind} for ${store} storage`,
    priority: 0,
    metadata: {},
  };
}

function refused(reason: string): MemoryDecision {
  return { should_persist: false, store_type: "none", reason, priority: 0, metadata: {} };
}

import { KeelError } from "../../core/index.js";

/**
 * The conflict error of a second decision on an occupied target: it names the active ids, the
 * targets that look like what was meant, and how to replace the active decisions.
 */
export function conflictError(input: {
  target: string;
  namespace: string;
  activeIds: readonly string[];
  didYouMean: readonly string[];
  missing?: readonly string[];
}): KeelError {
  const ids = input.activeIds.join(", ");
  const mean = input.didYouMean.length > 0 ? ` Did you mean: ${input.didYouMean.join(", ")}?` : "";
  const message = input.missing
    ? `A supersede must name every active decision on target '${input.target}' in namespace '${input.namespace}': ${input.missing.join(", ")} not named (active: ${ids}).`
    : `Target '${input.target}' in namespace '${input.namespace}' already has active decisions: ${ids}.${mean}`;
  return new KeelError("MEMORY_CONFLICT", message, {
    details: {
      target: input.target,
      namespace: input.namespace,
      activeIds: [...input.activeIds],
      didYouMean: [...input.didYouMean],
      ...(input.missing ? { missing: [...input.missing] } : {}),
    },
    hint: `To replace them, supersede: keel memory supersede --old ${input.activeIds.join(" --old ")} (the rationale says why, 15 characters or more); to keep both, record on another target.`,
  });
}

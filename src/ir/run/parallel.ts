import { KeelError } from "../../core/index.js";
import { assertStateUpdate, type StateShape } from "./state.js";

/** What one parallel branch produced. */
export interface BranchResult {
  target: string;
  ok: boolean;
  update?: Record<string, unknown>;
  error?: string;
  finishedAt: number;
  strategy?: string;
  after?: string;
}

/**
 * Joins parallel branches by strategy and returns the merged state update:
 * `all` — every branch must succeed, updates merged in target order;
 * `any` — at least one must succeed, successful updates merged;
 * `race` — the first branch to finish successfully wins, the others' updates are dropped;
 * `quorum` — more than half must succeed, successful updates merged.
 * A strategy that is not met is a run error (`IR_PARALLEL_FAILED`) listing the failures.
 */
export function resolveJoin(
  results: readonly BranchResult[],
  shape: StateShape,
): Record<string, unknown> {
  if (results.length === 0) return {};
  const strategy = results[0]?.strategy ?? "all";
  const ok = results.filter((r) => r.ok);
  const failed = results.filter((r) => !r.ok);
  const met =
    strategy === "all"
      ? failed.length === 0
      : strategy === "quorum"
        ? ok.length * 2 > results.length
        : ok.length > 0;
  if (!met) {
    throw new KeelError(
      "IR_PARALLEL_FAILED",
      `Parallel block (${strategy}) failed: ${failed.map((f) => `${f.target}: ${f.error}`).join("; ")}.`,
      {
        details: { strategy, failed: failed.map((f) => ({ target: f.target, error: f.error })) },
        hint: "Fix the failing branch nodes, or use a more lenient strategy (any, quorum).",
      },
    );
  }
  const chosen =
    strategy === "race" ? [...ok].sort((a, b) => a.finishedAt - b.finishedAt).slice(0, 1) : ok;
  const merged: Record<string, unknown> = {};
  for (const result of chosen) Object.assign(merged, result.update);
  assertStateUpdate(shape, merged, "a parallel join");
  return merged;
}

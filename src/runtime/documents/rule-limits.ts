import type { RuleLimits } from "../../rules/index.js";
import { getPreference, type Store } from "../../store/index.js";

/** The `rules.*` preference of each bound an IR run's rules have. */
const PREFERENCE_OF = {
  maxFirings: "rules.max_firings",
  maxLoopIterations: "rules.max_loop_iterations",
  maxFacts: "rules.max_facts",
  maxRunMs: "rules.max_run_ms",
} as const satisfies Partial<Record<keyof RuleLimits, string>>;

/**
 * The rule bounds the scope's preferences set for IR runs (`keel config set rules.max_firings
 * 50000`); what is not set keeps IR_RULE_LIMITS.
 *
 * @example
 * const ruleLimits = await ruleLimitsOf(store); // { maxFirings: 50000 }
 */
export async function ruleLimitsOf(store: Store): Promise<Partial<RuleLimits>> {
  const limits: Partial<Record<keyof RuleLimits, number>> = {};
  for (const [limit, key] of Object.entries(PREFERENCE_OF)) {
    const entry = await getPreference(store, key);
    if (entry.source === "set" && typeof entry.value === "number")
      limits[limit as keyof RuleLimits] = entry.value;
  }
  return limits;
}

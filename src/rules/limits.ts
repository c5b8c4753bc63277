import { KeelError } from "../core/index.js";

/**
 * Bounds on rule evaluation, so a rule that never settles — `(while TRUE …)`, a rule that
 * re-asserts what it retracts, a pack that grows working memory — stops with `RULES_LIMIT`
 * naming the rule instead of hanging the process or exhausting its memory.
 */
export interface RuleLimits {
  /** Rules one `run()` may fire (for an IR run: one step's rules). */
  readonly maxFirings: number;
  /** Iterations of one `while` or `loop-for-count`. */
  readonly maxLoopIterations: number;
  /** Facts working memory may hold at once. */
  readonly maxFacts: number;
  /** Wall time of one `run()` or one top-level command, in milliseconds. */
  readonly maxRunMs: number;
  /** Firings the explanation log (`explain()`, `keel rules run --json`) keeps; older ones go. */
  readonly maxFiringLog: number;
}

/**
 * The engine's defaults (`new RuleEngine()`, `keel rules run`): generous, for CLIPS programs
 * and benchmarks; they exist so that nothing runs without a bound.
 */
export const DEFAULT_RULE_LIMITS: RuleLimits = {
  maxFirings: 1_000_000,
  maxLoopIterations: 10_000_000,
  maxFacts: 1_000_000,
  maxRunMs: 60_000,
  maxFiringLog: 10_000,
};

/**
 * The defaults for an IR run's rules (document rules and governance packs), per step: a step
 * routes on a handful of firings, so anything near these is a rule that does not settle.
 * `keel config set rules.max_firings …` (and the other `rules.*` keys) changes them.
 */
export const IR_RULE_LIMITS: RuleLimits = {
  maxFirings: 10_000,
  maxLoopIterations: 1_000_000,
  maxFacts: 100_000,
  maxRunMs: 5_000,
  maxFiringLog: 10_000,
};

const WHAT: Record<keyof RuleLimits, string> = {
  maxFirings: "rule firings in one run",
  maxLoopIterations: "iterations of one loop",
  maxFacts: "facts in working memory",
  maxRunMs: "milliseconds of one run",
  maxFiringLog: "firings in the explanation log",
};

/**
 * `limits` over `base`, each a positive integer (INVALID_ARGUMENT naming the bad one).
 *
 * @example
 * resolveRuleLimits({ maxFirings: 500 }, IR_RULE_LIMITS).maxFirings // 500
 */
export function resolveRuleLimits(
  limits: Partial<RuleLimits> | undefined,
  base: RuleLimits = DEFAULT_RULE_LIMITS,
): RuleLimits {
  const resolved = { ...base };
  for (const [key, value] of Object.entries(limits ?? {})) {
    if (value === undefined) continue;
    if (!(key in WHAT)) {
      throw new KeelError("INVALID_ARGUMENT", `"${key}" is not a rule limit.`, {
        hint: `The limits are ${Object.keys(WHAT).join(", ")}.`,
      });
    }
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
      throw new KeelError(
        "INVALID_ARGUMENT",
        `The rule limit ${key} must be a whole number of at least 1, not ${String(value)}.`,
      );
    }
    resolved[key as keyof RuleLimits] = value;
  }
  return resolved;
}

/**
 * RULES_LIMIT: a bound of `RuleLimits` was reached, naming the rule when one was firing (the
 * engine adds it where the error crosses a rule's actions).
 */
export function ruleLimitError(
  limit: keyof RuleLimits,
  value: number,
  rule?: string,
  context?: string,
): KeelError {
  const inRule = rule !== undefined ? `Rule ${rule}` : "The rules";
  const where = context ? ` (${context})` : "";
  return new KeelError(
    "RULES_LIMIT",
    `${inRule} reached the limit of ${value} ${WHAT[limit]}${where}: a rule that does not settle (an endless loop, a rule that re-asserts what it retracts, or that grows working memory without end).`,
    {
      details: { rule, limit, value, ...(context ? { context } : {}) },
      hint: `Fix the rule so it settles (a guard fact, a bounded loop), or raise the limit (${limit}; for IR runs \`keel config set rules.${snake(limit)} <n>\`).`,
    },
  );
}

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

import { z } from "zod";
import { KeelError } from "../../core/index.js";
import { ExecutionMode, RiskLevel } from "../contracts/enums.js";
import { GateDecision, GatePolicy } from "../policy/gate-policy.js";
import {
  problemsFromZodIssues,
  type ValidationProblem,
  type ValidationResult,
} from "../validation/problems.js";

const Id = z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, "a name such as refund.large");

/** An exact intent mapped straight to a handler: no rule needed to decide what runs. */
export const FastPath = z.strictObject({
  /** Matched exactly against the event's `content.structured.intent`. */
  intent: z.string().min(1),
  handler: z.string().min(1),
  risk_level: RiskLevel.default("low"),
  required_scopes: z.array(z.string().min(1)).default([]),
});
export type FastPath = z.output<typeof FastPath>;

/**
 * A routing rule: CLIPS conditional elements over the event's facts (see `eventFacts`) and what
 * follows when they match. Rules only add: risk is the highest any rule gives, scopes are the
 * union, and a `gate` demand may tighten the gate policy's decision but never loosen it.
 */
export const RouteRule = z.strictObject({
  id: Id,
  /** e.g. `(field amount ?a&:(> ?a 100))` or `(channel email) (intent "refund.issue")`. */
  when: z.string().min(1),
  intent: z.string().min(1).nullable().default(null),
  handler: z.string().min(1).nullable().default(null),
  risk_level: RiskLevel.nullable().default(null),
  execution_mode: ExecutionMode.exclude(["fast"]).nullable().default(null),
  required_scopes: z.array(z.string().min(1)).default([]),
  gate: GateDecision.nullable().default(null),
  note: z.string().nullable().default(null),
});
export type RouteRule = z.output<typeof RouteRule>;

/** A router's configuration (snake_case JSON, like every Keel document). */
export const RoutingConfig = z
  .strictObject({
    fast_paths: z.array(FastPath).default([]),
    rules: z.array(RouteRule).default([]),
    /** What runs when neither a fast path nor a rule names a handler. */
    default_handler: z.string().min(1).nullable().default(null),
    /** Risk when nothing says otherwise. */
    default_risk: RiskLevel.default("low"),
    /** The gate policy (Keel's default when absent). */
    policy: GatePolicy.nullable().default(null),
    approval_ttl_seconds: z.int().min(1).default(3600),
  })
  .meta({ id: "RoutingConfig", description: "Fast paths and routing rules." });
export type RoutingConfig = z.output<typeof RoutingConfig>;
export type RoutingConfigInput = z.input<typeof RoutingConfig>;

/** Validates a routing configuration, reporting every problem; never throws. */
export function validateRoutingConfig(value: unknown): ValidationResult<RoutingConfig> {
  const parsed = RoutingConfig.safeParse(value);
  // Duplicates are looked for in the raw input too, so they are reported with the shape errors.
  const problems = [
    ...(parsed.success ? [] : problemsFromZodIssues(parsed.error.issues, value)),
    ...duplicates(value, "rules", "id", "rule id"),
    ...duplicates(value, "fast_paths", "intent", "fast path intent"),
  ];
  if (parsed.success && problems.length === 0)
    return { ok: true, value: parsed.data, problems: [] };
  return { ok: false, problems };
}

function duplicates(value: unknown, list: string, key: string, what: string): ValidationProblem[] {
  const items = (value as Record<string, unknown> | null)?.[list];
  if (!Array.isArray(items)) return [];
  const seen = new Map<unknown, number>();
  const problems: ValidationProblem[] = [];
  items.forEach((item, index) => {
    const id = (item as Record<string, unknown> | null)?.[key];
    if (typeof id !== "string") return;
    const first = seen.get(id);
    if (first === undefined) {
      seen.set(id, index);
      return;
    }
    problems.push({
      code: "value_error",
      path: `/${list}/${index}/${key}`,
      message: `The ${what} "${id}" is also used by ${list}[${first}].`,
      expected: `a unique ${what}`,
      actual: JSON.stringify(id),
      hint: `Give each entry of ${list} its own ${key}, or remove the duplicate.`,
    });
  });
  return problems;
}

/** Parses a routing configuration or throws `ROUTING_INVALID` listing every problem. */
export function parseRoutingConfig(value: unknown): RoutingConfig {
  const result = validateRoutingConfig(value);
  if (result.ok) return result.value;
  throw new KeelError("ROUTING_INVALID", "The routing configuration is invalid.", {
    details: { problems: result.problems },
    hint: result.problems.map((p) => `${p.path}: ${p.message}`).join("; "),
  });
}

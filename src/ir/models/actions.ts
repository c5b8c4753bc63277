import { z } from "zod";
import { DURATION_FORMS, DURATION_PATTERN } from "../duration.js";

/**
 * The rule actions of the IR: a discriminated union on `kind` (seed 000, "Actions").
 *
 * FR-11: actions appear only at the top level of `RuleSpec.then`. No variant has a field that
 * can hold another action, and every object is strict, so nesting is a validation problem rather
 * than something an interpreter must recurse into.
 */

export const GotoActionSchema = z
  .strictObject({
    kind: z.literal("goto").default("goto"),
    target: z.string().describe("Node id to transition to."),
  })
  .meta({ id: "GotoAction", description: "Transition to `target`." });

export const HaltActionSchema = z
  .strictObject({
    kind: z.literal("halt").default("halt"),
    reason: z.string().default("").describe("Why the run stops; recorded on the transition."),
  })
  .meta({ id: "HaltAction", description: "Stop the run." });

export const ParallelActionSchema = z
  .strictObject({
    kind: z.literal("parallel").default("parallel"),
    targets: z.array(z.string()).describe("Node ids fanned out in parallel."),
    join: z.string().default("").describe("Join node id (empty = end of block)."),
    strategy: z.string().default("all").describe("all / any / race / quorum."),
  })
  .meta({ id: "ParallelAction", description: "Fan out to several nodes, then join." });

export const RetryActionSchema = z
  .strictObject({
    kind: z.literal("retry").default("retry"),
    target: z.string().describe("Node id to run again."),
    backoff_ms: z.int().default(0).describe("Delay before the retry, in milliseconds."),
  })
  .meta({ id: "RetryAction", description: "Run `target` again after `backoff_ms`." });

export const AssertActionSchema = z
  .strictObject({
    kind: z.literal("assert").default("assert"),
    fact: z.string().describe("Fact (template) name to assert."),
    slots: z.string().default("").describe("JSON-encoded slot dict."),
  })
  .meta({ id: "AssertAction", description: "Assert a fact into the run's working memory." });

export const RetractActionSchema = z
  .strictObject({
    kind: z.literal("retract").default("retract"),
    pattern: z.string().describe("CLIPS pattern selecting the facts to retract."),
  })
  .meta({ id: "RetractAction", description: "Retract the facts matching `pattern`." });

export const InterruptActionSchema = z
  .strictObject({
    kind: z.literal("interrupt").default("interrupt"),
    prompt: z.string().describe("Operator-facing prompt surfaced on the wait event."),
    interrupt_payload: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("Free-form payload echoed on the wait event."),
    requested_capability: z
      .string()
      .nullable()
      .default(null)
      .describe("Capability required to respond."),
    timeout: z
      .union([z.number().min(0), z.string().regex(new RegExp(DURATION_PATTERN), DURATION_FORMS)])
      .nullable()
      .default(null)
      .describe(
        "Wait bound: seconds, or a duration as Pydantic reads a timedelta (`PT30S`, `P1D`, `00:30:00`, `1 day, 02:00:00`; a year is 365 days, a month 30); null means no timeout.",
      ),
    on_timeout: z
      .string()
      .default("halt")
      .describe('"halt" (terminal) or "goto:<node_id>" (resume target).'),
  })
  .meta({ id: "InterruptAction", description: "Pause the run and request human input." });

/** Every action variant, keyed by nothing: the union discriminates on `kind`. */
export const ActionSchema = z
  .discriminatedUnion("kind", [
    GotoActionSchema,
    HaltActionSchema,
    ParallelActionSchema,
    RetryActionSchema,
    AssertActionSchema,
    RetractActionSchema,
    InterruptActionSchema,
  ])
  .meta({ id: "Action", description: "A rule action, discriminated on `kind`." });

/** The `kind` of every action variant, in declaration order. */
export const ACTION_KINDS = [
  "goto",
  "halt",
  "parallel",
  "retry",
  "assert",
  "retract",
  "interrupt",
] as const;

export type ActionKind = (typeof ACTION_KINDS)[number];
export type GotoAction = z.output<typeof GotoActionSchema>;
export type HaltAction = z.output<typeof HaltActionSchema>;
export type ParallelAction = z.output<typeof ParallelActionSchema>;
export type RetryAction = z.output<typeof RetryActionSchema>;
export type AssertAction = z.output<typeof AssertActionSchema>;
export type RetractAction = z.output<typeof RetractActionSchema>;
export type InterruptAction = z.output<typeof InterruptActionSchema>;
/** A parsed action (defaults filled in). */
export type Action = z.output<typeof ActionSchema>;
/** An action as authored (defaulted fields optional). */
export type ActionInput = z.input<typeof ActionSchema>;

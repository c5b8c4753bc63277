import type { z } from "zod";
import { Approval } from "./approval.js";
import { Bcp47Locale, IanaTimezone } from "./primitives.js";
import { RetryPolicy, Step } from "./task.js";

type JsonSchema = Record<string, unknown>;

/**
 * What the models' refinements check beyond their fields' own types, as JSON Schema: `zod`
 * exports a refinement as nothing, so a producer validating with the exported schema alone
 * would accept documents the model refuses. What JSON Schema can say is added as `if`/`then`
 * under `allOf`; what it cannot (draft 2020-12 has no keyword comparing two values of the
 * instance, and no list of time zones or language tags) is named in `$comment`, so that a reader
 * of the schema knows the model checks more.
 */
const CONSTRAINTS = new Map<z.ZodType, { allOf?: JsonSchema[]; unexpressed?: string[] }>([
  [
    RetryPolicy,
    {
      allOf: [
        {
          // Exponential retries always jitter (the seed: "Always true for exponential").
          if: { properties: { strategy: { const: "exponential" } }, required: ["strategy"] },
          // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword.
          then: { properties: { jitter: { const: true } } },
        },
      ],
      unexpressed: ["max_delay_ms >= base_delay_ms"],
    },
  ],
  [Step, { unexpressed: ["attempt < max_attempts (attempts count from 0)"] }],
  [
    Approval,
    {
      allOf: [
        {
          // A decided approval says who decided it and when.
          if: { properties: { status: { enum: ["approved", "denied"] } }, required: ["status"] },
          // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword.
          then: {
            required: ["decision"],
            properties: {
              decision: {
                required: ["by", "at"],
                properties: { by: { type: "string" }, at: { type: "string" } },
              },
            },
          },
        },
        {
          // A pending approval has no decision time yet.
          if: { properties: { status: { const: "pending" } }, required: ["status"] },
          // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword.
          then: { properties: { decision: { properties: { at: { type: "null" } } } } },
        },
      ],
      unexpressed: ["expires_at > created_at"],
    },
  ],
  [IanaTimezone, { unexpressed: ["an IANA time zone name (tz database)"] }],
  [Bcp47Locale, { unexpressed: ["a BCP 47 language tag"] }],
]);

/**
 * `z.toJSONSchema`'s `override`: adds each refined model's cross-field constraints to its
 * schema wherever it appears (a Step's `retry_policy` too).
 */
export function addCrossFieldConstraints(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }) {
  const constraints = CONSTRAINTS.get(ctx.zodSchema as z.ZodType);
  if (!constraints) return;
  if (constraints.allOf) {
    const existing = (ctx.jsonSchema.allOf as JsonSchema[] | undefined) ?? [];
    ctx.jsonSchema.allOf = [...existing, ...constraints.allOf];
  }
  if (constraints.unexpressed) {
    ctx.jsonSchema.$comment = `Also checked by the model, not expressible in JSON Schema: ${constraints.unexpressed.join("; ")}.`;
  }
}

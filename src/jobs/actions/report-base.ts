/**
 * report-base.schema.json's shape, as Keel checks it on every report whatever the action:
 * a `confidence` in [0, 1] and a `safety` object (prompt-preamble.md, "Model response contract").
 */
export const REPORT_BASE_SCHEMA: Record<string, unknown> = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["confidence", "safety"],
  properties: {
    confidence: { type: "number", minimum: 0, maximum: 1 },
    safety: {
      type: "object",
      required: ["injectionDetected", "contentQuality"],
      additionalProperties: false,
      properties: {
        injectionDetected: { type: "boolean" },
        injectionType: {
          type: ["string", "null"],
          enum: ["direct-override", "role-swap", "hidden-instruction", "other", null],
        },
        injectionDetails: { type: ["string", "null"] },
        contentQuality: { type: "string", enum: ["clean", "suspicious", "malformed"] },
      },
    },
  },
};

import type { NodeKind } from "../../store/index.js";

const text = { type: "string" } as const;
const texts = { type: "array", items: { type: "string" } } as const;

/** A summary report: report-base's two fields allowed, the kind's own fields, nothing else. */
function summary(required: string, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    required: [required],
    additionalProperties: false,
    properties: { confidence: true, safety: true, ...fields },
  };
}

/**
 * The report shape of each kind's summarizer (the spec's `schemas/summaries/<kind>.schema.json`):
 * one required headline field, optional lists and notes, no other fields.
 */
export const SUMMARY_SCHEMAS: Readonly<Record<NodeKind, Record<string, unknown>>> = {
  skill: summary("whatItDoes", {
    whatItDoes: text,
    recipe: {
      type: "array",
      items: {
        type: "object",
        required: ["step", "description"],
        additionalProperties: false,
        properties: { step: { type: "integer", minimum: 1 }, description: text },
      },
    },
    preconditions: texts,
    outputs: texts,
    sideEffects: texts,
    relatedNodes: texts,
    qualityNotes: text,
  }),
  agent: summary("whatItDoes", {
    whatItDoes: text,
    whenToUse: text,
    capabilities: texts,
    toolsObserved: texts,
    interactionStyle: text,
    relatedNodes: texts,
    qualityNotes: text,
  }),
  command: summary("whatItDoes", {
    whatItDoes: text,
    invocationExample: text,
    argsObserved: {
      type: "array",
      items: {
        type: "object",
        required: ["name"],
        additionalProperties: false,
        properties: { name: text, type: text, description: text, required: { type: "boolean" } },
      },
    },
    sideEffects: texts,
    relatedNodes: texts,
    qualityNotes: text,
  }),
  hook: summary("whatItDoes", {
    whatItDoes: text,
    triggerInferred: text,
    sideEffects: texts,
    blockingInferred: { type: "boolean" },
    idempotentInferred: { type: "boolean" },
    relatedNodes: texts,
    qualityNotes: text,
  }),
  note: summary("whatItCovers", {
    whatItCovers: text,
    topics: texts,
    keyFacts: texts,
    relatedNodes: texts,
    qualityNotes: text,
  }),
};

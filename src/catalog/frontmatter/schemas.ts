import type { NodeKind } from "../model.js";

/**
 * The spec's frontmatter standard as JSON Schemas (draft 2020-12), one per node kind: a base
 * every kind shares (`name`, `description`, `metadata.version` required; unknown keys allowed)
 * and each kind's own fields. Checked against the spec package's schemas by
 * test/catalog/frontmatter-schemas.test.ts.
 */
const stringList = { type: "array", items: { type: "string" } } as const;
const isoDate = { type: "string", anyOf: [{ format: "date" }, { format: "date-time" }] } as const;
const uri = { type: "string", format: "uri" } as const;

const metadata = {
  type: "object",
  required: ["version"],
  additionalProperties: true,
  properties: {
    version: { type: "string" },
    github: { type: "string" },
    homepage: uri,
    linkedin: { type: "string" },
    twitter: { type: "string" },
    specCompat: { type: "string" },
    stability: { type: "string", enum: ["experimental", "stable", "deprecated"] },
    supersedes: stringList,
    supersededBy: { type: "string" },
    source: uri,
    sourceVersion: { type: "string" },
    tags: stringList,
    category: { type: "string" },
    keywords: stringList,
    created: isoDate,
    updated: isoDate,
    released: isoDate,
    requires: stringList,
    conflictsWith: stringList,
    provides: stringList,
    related: stringList,
    icon: { type: "string" },
    color: { type: "string" },
    priority: { type: "integer" },
    hidden: { type: "boolean" },
    docsUrl: uri,
    readme: { type: "string" },
    examplesUrl: uri,
  },
} as const;

const base = {
  type: "object",
  required: ["name", "description", "metadata"],
  additionalProperties: true,
  properties: {
    name: { type: "string", minLength: 1 },
    description: { type: "string", minLength: 1 },
    type: { type: "string" },
    author: { type: "string" },
    authors: stringList,
    license: { type: "string" },
    metadata,
  },
} as const;

// A declared input, output or argument: a name, and free-form hints.
const parameter = {
  type: "object",
  required: ["name"],
  additionalProperties: true,
  properties: {
    name: { type: "string", minLength: 1 },
    type: { type: "string" },
    description: { type: "string" },
    required: { type: "boolean" },
  },
} as const;

const KIND_FIELDS: Record<NodeKind, Record<string, unknown>> = {
  skill: {
    inputs: { type: "array", items: parameter },
    outputs: { type: "array", items: parameter },
  },
  agent: { model: { type: "string" }, tools: stringList },
  command: { args: { type: "array", items: parameter }, shortcut: { type: "string" } },
  hook: {
    event: { type: "string" },
    condition: { type: "string" },
    blocking: { type: "boolean" },
    idempotent: { type: "boolean" },
  },
  note: {},
};

const BASE_ID = "keel:catalog/frontmatter/base";

/** The base every kind's schema refers to (by `$id`): register it once, compile it once. */
export function frontmatterBaseSchema(): Record<string, unknown> {
  return { $schema: "https://json-schema.org/draft/2020-12/schema", $id: BASE_ID, ...base };
}

/**
 * The JSON Schema a node of `kind` has its frontmatter checked against. `inline` embeds the base
 * (a self-contained schema); otherwise it refers to `frontmatterBaseSchema()` by id.
 */
export function frontmatterSchema(kind: NodeKind, inline = true): Record<string, unknown> {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: `keel:catalog/frontmatter/${kind}`,
    allOf: [inline ? base : { $ref: BASE_ID }],
    type: "object",
    additionalProperties: true,
    properties: KIND_FIELDS[kind],
  };
}

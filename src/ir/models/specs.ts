import { z } from "zod";

/**
 * The registration records of seed 000 that live beside an IR document rather than inside it:
 * tool, skill and store descriptors, plugin manifests and fact templates.
 */

/** What running a tool may do; the cleared profile refuses `write` and `external`. */
export const SideEffectsSchema = z
  .enum(["none", "read", "write", "external"])
  .meta({ id: "SideEffects" });

/** Replay policies of the seed's IR (1.0.0), as Keel defined them (docs/ir.md). */
export const SEED_REPLAY_POLICIES = ["must_stub", "rerun", "skip"] as const;

/** Replay policies of IR 1.1.0, with Stargraph 0.8's spellings and meanings. */
export const REPLAY_POLICIES_1_1 = ["must-stub", "fail-loud", "recorded-result"] as const;

/**
 * How replay treats a tool call. Both vocabularies load in any document, so a 1.0.0 document
 * keeps validating and hashing as before; `jsonSchemaFor` publishes the one of the IR version it
 * is asked for. Meanings (docs/ir.md): `must_stub` / `must-stub` answer from the recorded call and
 * fail without one; `rerun` runs a side-effect-free tool again; `skip` makes no call;
 * `fail-loud` refuses any replay of the call; `recorded-result` answers from the recorded call
 * and runs a side-effect-free tool again where there is none.
 */
export const ReplayPolicySchema = z
  .enum([...SEED_REPLAY_POLICIES, ...REPLAY_POLICIES_1_1])
  .meta({ id: "ReplayPolicy" });

/**
 * A decimal amount, as Pydantic writes a `Decimal`: a decimal string. Not a JSON number: the
 * seed's FR-9 says money is never a float, and a JSON number is one by the time it is parsed.
 */
const DecimalSchema = z
  .string()
  .regex(/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/, 'a decimal string such as "0.25"');

const JsonObject = z.record(z.string(), z.unknown());

export const ToolSpecSchema = z
  .strictObject({
    name: z.string().describe("Tool name (unique within namespace)."),
    namespace: z.string().describe("Namespace prefix."),
    version: z.string().describe("Tool semver."),
    description: z.string().describe("Human-readable summary."),
    input_schema: JsonObject.describe("JSON Schema for the input payload."),
    output_schema: JsonObject.describe("JSON Schema for the output payload."),
    side_effects: SideEffectsSchema.describe("none, read, write or external."),
    replay_policy: ReplayPolicySchema.default("must_stub").describe("How replay treats a call."),
    permissions: z.array(z.string()).default([]).describe("Capabilities required to execute."),
    idempotency_key: z.string().nullable().default(null).describe("Caller-supplied dedupe key."),
    cost_estimate: DecimalSchema.nullable()
      .default(null)
      .describe("Monetary estimate: a decimal string (never a float in Python)."),
    examples: z.array(JsonObject).default([]).describe("Inline IO examples."),
    tags: z.array(z.string()).default([]).describe("Discoverability tags."),
    deprecated: z.boolean().default(false).describe("Marks the tool deprecated."),
  })
  .meta({ id: "ToolSpec", description: "A tool descriptor." });

export const SkillSpecSchema = z
  .strictObject({
    name: z.string().describe("Skill name."),
    namespace: z.string().describe("Namespace prefix."),
    version: z.string().describe("Skill semver."),
    description: z.string().describe("Human-readable summary."),
    kind: z.enum(["agent", "workflow", "utility"]).describe("Skill category."),
    tools: z.array(z.string()).default([]).describe("Tool ids the skill may call."),
    examples: z.array(JsonObject).default([]).describe("Inline IO examples."),
    subgraph: z.string().nullable().default(null).describe("Optional graph fragment id."),
    system_prompt: z.string().nullable().default(null).describe("Optional prompt template."),
  })
  .meta({ id: "SkillSpec", description: "A named bundle of agent, workflow or utility logic." });

export const StoreProtocolSchema = z
  .enum(["vector", "graph", "doc", "memory", "fact"])
  .meta({ id: "StoreProtocol" });

export const StoreSpecSchema = z
  .strictObject({
    name: z.string().describe("Local binding name."),
    provider: z.string().describe("Provider plugin id."),
    protocol: StoreProtocolSchema.describe("vector, graph, doc, memory or fact."),
    config_schema: JsonObject.describe("JSON Schema for the provider's config payload."),
    capabilities: z
      .array(z.string())
      .default([])
      .describe("Explicit capabilities; empty means the db.<name>:read/write pair."),
  })
  .meta({ id: "StoreSpec", description: "A store registration record." });

export const PluginManifestSchema = z
  .strictObject({
    name: z.string().describe("Plugin distribution name."),
    version: z.string().describe("Plugin semver."),
    api_version: z.literal("1").describe('Pinned to "1".'),
    namespaces: z.array(z.string()).describe("Namespaces the plugin claims."),
    provides: z
      .array(z.enum(["tool", "skill", "store", "pack", "trigger", "mcp_adapter"]))
      .describe("Entity kinds."),
    order: z.int().min(0).max(10000).default(5000).describe("Load priority (0..10000)."),
  })
  .meta({ id: "PluginManifest", description: "A plugin's identity and what it provides." });

export const SlotDefSchema = z
  .strictObject({
    name: z.string().describe("Slot name."),
    type: z.string().describe("Slot type string."),
    default: z.string().nullable().default(null).describe("Optional default value."),
  })
  .meta({ id: "SlotDef", description: "A typed slot of a fact template." });

export const FactTemplateSchema = z
  .strictObject({
    name: z.string().describe("Template name."),
    slots: z.array(SlotDefSchema).default([]).describe("Typed slot definitions."),
  })
  .meta({ id: "FactTemplate", description: "A CLIPS deftemplate descriptor." });

export type SideEffects = z.output<typeof SideEffectsSchema>;
export type ReplayPolicy = z.output<typeof ReplayPolicySchema>;
export type StoreProtocol = z.output<typeof StoreProtocolSchema>;
export type ToolSpec = z.output<typeof ToolSpecSchema>;
export type SkillSpec = z.output<typeof SkillSpecSchema>;
export type StoreSpec = z.output<typeof StoreSpecSchema>;
export type PluginManifest = z.output<typeof PluginManifestSchema>;
export type SlotDef = z.output<typeof SlotDefSchema>;
export type FactTemplate = z.output<typeof FactTemplateSchema>;

/**
 * A store's effective capabilities: its explicit list, or the `db.<name>:read/write` pair.
 *
 * @example
 * effectiveCapabilities({ ...spec, capabilities: [] }) // ["db.notes:read", "db.notes:write"]
 */
export function effectiveCapabilities(store: StoreSpec): string[] {
  if (store.capabilities.length > 0) return [...store.capabilities];
  return [`db.${store.name}:read`, `db.${store.name}:write`];
}

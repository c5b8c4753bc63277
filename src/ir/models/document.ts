import { z } from "zod";
import { ActionSchema } from "./actions.js";

/**
 * The models an `IRDocument` is made of (seed 000). Field names, types, requiredness and
 * defaults follow the seed exactly; every object is strict, so unknown keys are rejected.
 * Cross-field checks (slugs, versions, references) live in `validate`, not here (FR-7).
 */

export const NodeSpecSchema = z
  .strictObject({
    id: z.string().describe("Stable slug."),
    kind: z
      .string()
      .describe(
        "Node factory key (echo, halt, …) or a user-code reference `module/path:ExportName`.",
      ),
  })
  .meta({ id: "NodeSpec", description: "A graph node." });

export const RuleSpecSchema = z
  .strictObject({
    id: z.string().describe("Stable slug."),
    when: z.string().default("").describe("CLIPS-pattern condition string."),
    // biome-ignore lint/suspicious/noThenProperty: `then` is the seed's wire name for a rule's actions.
    then: z
      .array(ActionSchema)
      .default([])
      .describe("Actions, a discriminated union on `kind`; nested actions are forbidden (FR-11)."),
  })
  .meta({ id: "RuleSpec", description: "A rule: a `when` pattern and the actions it fires." });

export const ToolRefSchema = z
  .strictObject({
    id: z.string().describe("Namespaced tool id (e.g. ns.name)."),
    version: z.string().nullable().default(null).describe("Optional pinned version."),
  })
  .meta({ id: "ToolRef", description: "A tool the graph relies on." });

export const SkillRefSchema = z
  .strictObject({
    id: z.string().describe("Namespaced skill id."),
    version: z.string().nullable().default(null).describe("Optional pinned version."),
  })
  .meta({ id: "SkillRef", description: "A skill the graph relies on." });

export const StoreRefSchema = z
  .strictObject({
    name: z.string().describe("Local binding name (used in capability strings)."),
    provider: z.string().describe("Provider plugin id."),
  })
  .meta({ id: "StoreRef", description: "A store binding (the full record is StoreSpec)." });

export const PackRequiresSchema = z
  .strictObject({
    stargraph_facts_version: z
      .string()
      .nullable()
      .default(null)
      .describe('Required facts schema version (e.g. "1.0").'),
    api_version: z
      .string()
      .nullable()
      .default(null)
      .describe('Required plugin api_version (e.g. "1").'),
  })
  .meta({ id: "PackRequires", description: "A pack's version-compatibility declaration." });

export const PackMountSchema = z
  .strictObject({
    id: z.string().describe("Stable slug."),
    version: z.string().nullable().default(null).describe("Pinned pack version."),
    requires: PackRequiresSchema.nullable()
      .default(null)
      .describe("Version-compat declaration; checked when the pack loads."),
  })
  .meta({ id: "PackMount", description: "A mounted governance (rule) pack." });

export const ParallelBlockSchema = z
  .strictObject({
    targets: z.array(z.string()).describe("Node ids fanned out in parallel."),
    join: z.string().default("").describe("Join node id (empty = end of block)."),
    strategy: z.string().default("all").describe("all / any / race / quorum."),
  })
  .meta({ id: "ParallelBlock", description: "A top-level parallel/join declaration." });

export const MigrateBlockSchema = z
  .strictObject({
    from_hash: z.string().describe("Pre-migration graph hash."),
    to_hash: z.string().describe("Post-migration graph hash."),
  })
  .meta({ id: "MigrateBlock", description: "Allows resuming a run across a graph-hash change." });

export const IRDocumentSchema = z
  .strictObject({
    ir_version: z
      .string()
      .describe("MAJOR.MINOR.PATCH; a major other than this build's is refused."),
    id: z.string().describe("Document identifier (free-form)."),
    nodes: z.array(NodeSpecSchema).describe("Graph nodes, in fall-through order."),
    rules: z.array(RuleSpecSchema).default([]).describe("Rule definitions."),
    tools: z.array(ToolRefSchema).default([]).describe("Tools the graph relies on."),
    skills: z.array(SkillRefSchema).default([]).describe("Skills the graph relies on."),
    stores: z.array(StoreRefSchema).default([]).describe("Store bindings."),
    state_schema: z
      .record(z.string(), z.string())
      .default({})
      .describe("State field name -> primitive type string."),
    state_class: z
      .string()
      .nullable()
      .default(null)
      .describe("A registered state class name, instead of a non-empty state_schema."),
    parallel: z.array(ParallelBlockSchema).default([]).describe("Top-level parallel blocks."),
    governance: z.array(PackMountSchema).default([]).describe("Mounted governance packs."),
    migrate: z.array(MigrateBlockSchema).default([]).describe("Hash-to-hash migrations."),
  })
  .meta({
    id: "IRDocument",
    description: "A portable graph: nodes, rules, tools, skills, stores, packs, migrations.",
  });

export type NodeSpec = z.output<typeof NodeSpecSchema>;
export type RuleSpec = z.output<typeof RuleSpecSchema>;
export type ToolRef = z.output<typeof ToolRefSchema>;
export type SkillRef = z.output<typeof SkillRefSchema>;
export type StoreRef = z.output<typeof StoreRefSchema>;
export type PackRequires = z.output<typeof PackRequiresSchema>;
export type PackMount = z.output<typeof PackMountSchema>;
export type ParallelBlock = z.output<typeof ParallelBlockSchema>;
export type MigrateBlock = z.output<typeof MigrateBlockSchema>;
/** A parsed IR document: every section present, defaults filled in. */
export type IRDocument = z.output<typeof IRDocumentSchema>;
/** An IR document as authored: only `ir_version`, `id` and `nodes` are required. */
export type IRDocumentInput = z.input<typeof IRDocumentSchema>;

/**
 * The capability pair a store binding implies: `db.<name>:read` and `db.<name>:write`.
 *
 * @example
 * storeRefCapabilities({ name: "notes", provider: "sqlite" }) // ["db.notes:read", "db.notes:write"]
 */
export function storeRefCapabilities(store: StoreRef): [string, string] {
  return [`db.${store.name}:read`, `db.${store.name}:write`];
}

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
    spec: z
      .string()
      .nullable()
      .default(null)
      .describe("IR 1.1.0: a subgraph file path, relative to the document, for `subgraph` nodes."),
    config: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("IR 1.1.0: settings handed to the node's factory."),
  })
  .meta({ id: "NodeSpec", description: "A graph node." });

export const RuleSpecSchema = z
  .strictObject({
    id: z.string().describe("Stable slug."),
    when: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .default("")
      .describe(
        "CLIPS-pattern condition string, or (IR 1.1.0) the mapping sugar `{node: <id>, <field>: <value>}`.",
      ),
    // biome-ignore lint/suspicious/noThenProperty: `then` is the seed's wire name for a rule's actions.
    then: z
      .array(ActionSchema)
      .default([])
      .describe("Actions, a discriminated union on `kind`; nested actions are forbidden (FR-11)."),
    node_id: z
      .string()
      .nullable()
      .default(null)
      .describe("IR 1.1.0: the node the rule belongs to (see backfillRuleNodeIds)."),
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

export const CheckpointBlockSchema = z
  .strictObject({
    every: z
      .enum(["node-exit", "never"])
      .default("node-exit")
      .describe("Checkpoint cadence: after every node, or never."),
    store: z
      .string()
      .default("sqlite:./.stargraph/run.sqlite")
      .describe("Where checkpoints go, as `sqlite:<path>` or `postgres:<dsn>`."),
  })
  .meta({ id: "CheckpointBlock", description: "IR 1.1.0: the document's checkpoint policy." });

export const SGLangServerSchema = z
  .strictObject({
    provider: z.literal("sglang").default("sglang").describe("The model server's kind."),
    model: z.string().describe("The model the server serves (its `--model-path`)."),
    host: z.string().default("127.0.0.1").describe("Host the server listens on."),
    port: z.int().default(30000).describe("Port the server listens on."),
    args: z.array(z.string()).default([]).describe("Extra server arguments (operator-only)."),
    startup_timeout_s: z.int().default(600).describe("Seconds to wait for the server to answer."),
  })
  .meta({
    id: "SGLangServer",
    description:
      "IR 1.1.0: a model endpoint bound to the graph (an environment binding, not topology).",
  });

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
    checkpoints: CheckpointBlockSchema.nullable()
      .default(null)
      .describe("IR 1.1.0: checkpoint policy; null means the runner's defaults."),
    lm: SGLangServerSchema.nullable()
      .default(null)
      .describe("IR 1.1.0: a model endpoint for the run; not part of the structural hash."),
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
export type CheckpointBlock = z.output<typeof CheckpointBlockSchema>;
export type SGLangServer = z.output<typeof SGLangServerSchema>;
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

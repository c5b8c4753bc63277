import { describe, expect, it } from "vitest";
import {
  effectiveCapabilities,
  jsonSchemaFor,
  loads,
  type ModelName,
  storeRefCapabilities,
} from "../../src/ir/index.js";

/**
 * Each model's fields in the seed's order, with the default of every optional one; IR 1.1.0
 * adds node `spec`/`config`, rule `node_id`, `checkpoints`, `lm`, and a default `kind` on each
 * action variant (the union still needs it to tell the variants apart).
 */
const SEED: Record<
  Exclude<ModelName, "Action">,
  { required: string[]; defaults: Record<string, unknown> }
> = {
  IRDocument: {
    required: ["ir_version", "id", "nodes"],
    defaults: {
      rules: [],
      tools: [],
      skills: [],
      stores: [],
      state_schema: {},
      state_class: null,
      parallel: [],
      governance: [],
      migrate: [],
      checkpoints: null,
      lm: null,
    },
  },
  NodeSpec: { required: ["id", "kind"], defaults: { spec: null, config: {} } },
  // biome-ignore lint/suspicious/noThenProperty: `then` is the IR's wire name.
  RuleSpec: { required: ["id"], defaults: { when: "", then: [], node_id: null } },
  GotoAction: { required: ["target"], defaults: { kind: "goto" } },
  HaltAction: { required: [], defaults: { kind: "halt", reason: "" } },
  ParallelAction: {
    required: ["targets"],
    defaults: { kind: "parallel", join: "", strategy: "all" },
  },
  RetryAction: { required: ["target"], defaults: { kind: "retry", backoff_ms: 0 } },
  AssertAction: { required: ["fact"], defaults: { kind: "assert", slots: "" } },
  RetractAction: { required: ["pattern"], defaults: { kind: "retract" } },
  InterruptAction: {
    required: ["prompt"],
    defaults: {
      kind: "interrupt",
      interrupt_payload: {},
      requested_capability: null,
      timeout: null,
      on_timeout: "halt",
    },
  },
  ToolRef: { required: ["id"], defaults: { version: null } },
  ToolSpec: {
    required: [
      "name",
      "namespace",
      "version",
      "description",
      "input_schema",
      "output_schema",
      "side_effects",
    ],
    defaults: {
      replay_policy: "must_stub",
      permissions: [],
      idempotency_key: null,
      cost_estimate: null,
      examples: [],
      tags: [],
      deprecated: false,
    },
  },
  SkillRef: { required: ["id"], defaults: { version: null } },
  SkillSpec: {
    required: ["name", "namespace", "version", "description", "kind"],
    defaults: { tools: [], examples: [], subgraph: null, system_prompt: null },
  },
  StoreRef: { required: ["name", "provider"], defaults: {} },
  StoreSpec: {
    required: ["name", "provider", "protocol", "config_schema"],
    defaults: { capabilities: [] },
  },
  PluginManifest: {
    required: ["name", "version", "api_version", "namespaces", "provides"],
    defaults: { order: 5000 },
  },
  PackMount: { required: ["id"], defaults: { version: null, requires: null } },
  PackRequires: { required: [], defaults: { stargraph_facts_version: null, api_version: null } },
  ParallelBlock: { required: ["targets"], defaults: { join: "", strategy: "all" } },
  MigrateBlock: { required: ["from_hash", "to_hash"], defaults: {} },
  CheckpointBlock: {
    required: [],
    defaults: { every: "node-exit", store: "sqlite:./.stargraph/run.sqlite" },
  },
  SGLangServer: {
    required: ["model"],
    defaults: {
      provider: "sglang",
      host: "127.0.0.1",
      port: 30000,
      args: [],
      startup_timeout_s: 600,
    },
  },
  FactTemplate: { required: ["name"], defaults: { slots: [] } },
  SlotDef: { required: ["name", "type"], defaults: { default: null } },
};

type Definition = { properties: Record<string, { default?: unknown }>; required?: string[] };

/** The model's JSON Schema as the seed's IR (1.0.0) publishes it. */
function definition(model: ModelName): Definition {
  const schema = jsonSchemaFor(model, { irVersion: "1.0.0" }) as {
    $defs?: Record<string, Definition>;
  } & Definition;
  return schema.$defs?.[model] ?? schema;
}

describe("models match the seed", () => {
  for (const [model, seed] of Object.entries(SEED) as [
    keyof typeof SEED,
    (typeof SEED)[keyof typeof SEED],
  ][]) {
    it(`${model}: exact fields, requiredness and defaults`, () => {
      const def = definition(model);
      const fields = Object.keys(def.properties);
      expect(fields.sort()).toEqual([...seed.required, ...Object.keys(seed.defaults)].sort());
      expect(def.required ?? []).toEqual(seed.required);
      for (const [field, value] of Object.entries(seed.defaults)) {
        expect(def.properties[field]?.default).toEqual(value);
      }
    });
  }

  it("orders IRDocument fields as the seed declares them", () => {
    expect(Object.keys(definition("IRDocument").properties)).toEqual([
      "ir_version",
      "id",
      "nodes",
      "rules",
      "tools",
      "skills",
      "stores",
      "state_schema",
      "state_class",
      "parallel",
      "governance",
      "migrate",
      "checkpoints",
      "lm",
    ]);
  });

  it("gives stores their default capability pair", () => {
    expect(storeRefCapabilities({ name: "notes", provider: "sqlite" })).toEqual([
      "db.notes:read",
      "db.notes:write",
    ]);
    const spec = loads(
      '{"name":"notes","provider":"sqlite","protocol":"doc","config_schema":{}}',
      "StoreSpec",
    );
    expect(effectiveCapabilities(spec)).toEqual(["db.notes:read", "db.notes:write"]);
    expect(effectiveCapabilities({ ...spec, capabilities: ["db.notes:read"] })).toEqual([
      "db.notes:read",
    ]);
  });
});

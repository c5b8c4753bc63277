import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import {
  isModelName,
  jsonSchemaFor,
  type MODELS,
  modelNames,
  validateModel,
} from "../../src/ir/index.js";

type Schema = Record<string, unknown> & {
  $defs?: Record<string, Schema>;
  properties?: Record<string, Schema>;
  required?: string[];
};

function definition(model: string): Schema {
  const schema = jsonSchemaFor(model as keyof typeof MODELS) as Schema;
  return schema.$defs?.[model] ?? schema;
}

describe("JSON Schema export", () => {
  it("exists for every model of the seed", () => {
    expect(modelNames().sort()).toEqual(
      [
        "Action",
        "AssertAction",
        "CheckpointBlock",
        "FactTemplate",
        "GotoAction",
        "HaltAction",
        "IRDocument",
        "InterruptAction",
        "MigrateBlock",
        "NodeSpec",
        "PackMount",
        "PackRequires",
        "ParallelAction",
        "ParallelBlock",
        "PluginManifest",
        "RetractAction",
        "RetryAction",
        "RuleSpec",
        "SGLangServer",
        "SkillRef",
        "SkillSpec",
        "SlotDef",
        "StoreRef",
        "StoreSpec",
        "ToolRef",
        "ToolSpec",
      ].sort(),
    );
    for (const name of modelNames()) {
      const schema = jsonSchemaFor(name);
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(schema.title).toBe(name);
    }
  });

  it("makes only required fields required and carries defaults", () => {
    const doc = definition("IRDocument");
    expect(doc.required).toEqual(["ir_version", "id", "nodes"]);
    expect(doc.additionalProperties).toBe(false);
    expect(doc.properties?.rules?.default).toEqual([]);
    expect(doc.properties?.state_class?.default).toBeNull();
    const tool = definition("ToolSpec");
    expect(tool.required).toEqual([
      "name",
      "namespace",
      "version",
      "description",
      "input_schema",
      "output_schema",
      "side_effects",
    ]);
    expect(tool.properties?.replay_policy?.default).toBe("must-stub");
    const manifest = definition("PluginManifest");
    expect(manifest.properties?.order).toMatchObject({
      type: "integer",
      minimum: 0,
      maximum: 10000,
      default: 5000,
    });
  });

  it("publishes the replay policies of the IR version asked for, and loads both in any document", () => {
    const policies = (irVersion?: string) => {
      const schema = jsonSchemaFor("ToolSpec", irVersion ? { irVersion } : {}) as Schema;
      const tool = schema.$defs?.ToolSpec;
      return {
        values: schema.$defs?.ReplayPolicy?.enum,
        default: tool?.properties?.replay_policy?.default,
        comment: schema.$comment,
      };
    };
    expect(policies()).toEqual({
      values: ["must-stub", "fail-loud", "recorded-result"],
      default: "must-stub",
      comment: "Keel IR 1.1.0",
    });
    expect(policies("1.0.0")).toEqual({
      values: ["must_stub", "rerun", "skip"],
      default: "must_stub",
      comment: "Keel IR 1.0.0",
    });
    const tool = (replay_policy: string) => ({
      name: "t",
      namespace: "n",
      version: "1",
      description: "d",
      input_schema: {},
      output_schema: {},
      side_effects: "read",
      replay_policy,
    });
    for (const value of [
      "must_stub",
      "rerun",
      "skip",
      "must-stub",
      "fail-loud",
      "recorded-result",
    ]) {
      expect(validateModel("ToolSpec", tool(value)), value).toEqual([]);
    }
    expect(validateModel("ToolSpec", tool("fail_loud")).map((p) => p.path)).toEqual([
      "/replay_policy",
    ]);
  });

  it("describes actions as a oneOf on kind, with strict variants whose kind defaults", () => {
    const schema = jsonSchemaFor("Action") as Schema;
    const defs = schema.$defs ?? {};
    const action = defs.Action ?? schema;
    expect((action.oneOf as unknown[]).length).toBe(7);
    for (const variant of [
      "GotoAction",
      "HaltAction",
      "ParallelAction",
      "RetryAction",
      "AssertAction",
      "RetractAction",
      "InterruptAction",
    ]) {
      expect(defs[variant]?.additionalProperties).toBe(false);
      // IR 1.1.0: a variant given alone may leave out its kind; in the union it tells them apart.
      expect(defs[variant]?.required ?? []).not.toContain("kind");
      expect(defs[variant]?.properties?.kind?.default).toBe(
        variant.replace("Action", "").toLowerCase(),
      );
    }
    expect(defs.InterruptAction?.properties?.on_timeout?.default).toBe("halt");
  });
});

// The IR's wire name for a rule's actions; a computed key keeps linters from taking it for a thenable.
const THEN = "then";

describe("the JSON Schemas validate like the models (as another language would use them)", () => {
  const ajv = new Ajv2020({ strict: false });
  const golden = JSON.parse(
    readFileSync(new URL("./fixtures/golden/round-trip.json", import.meta.url), "utf8"),
  ) as { fixtures: { name: string; model: string; wire: string }[] };
  const validation = JSON.parse(
    readFileSync(new URL("./fixtures/validation/models.json", import.meta.url), "utf8"),
  ) as { cases: { name: string; model: string; input?: unknown; text?: string }[] };

  it("accept every golden document (the seed's: IR 1.0.0's vocabulary)", () => {
    for (const fixture of golden.fixtures) {
      if (!isModelName(fixture.model)) throw new Error(fixture.model);
      const check = ajv.compile(jsonSchemaFor(fixture.model, { irVersion: "1.0.0" }));
      expect(check(JSON.parse(fixture.wire)), fixture.name).toBe(true);
    }
  });

  it("agree with the zod models on every per-model validation fixture", () => {
    for (const testCase of validation.cases.filter((c) => c.text === undefined)) {
      if (!isModelName(testCase.model)) throw new Error(testCase.model);
      const check = ajv.compile(jsonSchemaFor(testCase.model));
      const zodValid = validateModel(testCase.model, testCase.input).length === 0;
      expect(check(testCase.input), testCase.name).toBe(zodValid);
    }
  });

  it("refuse unknown keys, unknown action kinds and nested actions", () => {
    const check = ajv.compile(jsonSchemaFor("IRDocument"));
    const base = { ir_version: "1.0.0", id: "g", nodes: [{ id: "a", kind: "echo" }] };
    expect(check(base)).toBe(true);
    expect(check({ ...base, extra: 1 })).toBe(false);
    const rule = (action: unknown) => ({ ...base, rules: [{ id: "r", [THEN]: [action] }] });
    expect(check(rule({ kind: "goto", target: "a" }))).toBe(true);
    expect(check(rule({ kind: "jump", target: "a" }))).toBe(false);
    expect(check(rule({ kind: "goto", target: "a", [THEN]: [{ kind: "halt" }] }))).toBe(false);
    expect(check(rule({ kind: "parallel", targets: [{ kind: "goto", target: "a" }] }))).toBe(false);
  });
});

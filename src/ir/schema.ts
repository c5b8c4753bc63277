import { z } from "zod";
import { MODELS, type ModelName } from "./models/index.js";
import {
  REPLAY_POLICIES_1_1,
  ReplayPolicySchema,
  SEED_REPLAY_POLICIES,
  ToolSpecSchema,
} from "./models/specs.js";
import { IR_VERSION, isAtLeast11 } from "./version.js";

/** A JSON Schema document (draft 2020-12). */
export type JsonSchema = Record<string, unknown>;

/** Options of {@link jsonSchemaFor}. */
export interface JsonSchemaOptions {
  /**
   * The IR version whose vocabulary the schema publishes (default {@link IR_VERSION}). Keel loads
   * both versions' `ReplayPolicy` spellings in any document; the schema of `1.0.0` lists the
   * seed's (`must_stub`, `rerun`, `skip`), that of `1.1.0` Stargraph's (`must-stub`,
   * `fail-loud`, `recorded-result`).
   */
  irVersion?: string;
}

/**
 * The JSON Schema (draft 2020-12) of an IR model, for validating documents in other languages.
 * It describes the wire form: defaulted fields are optional and carry their `default`, unknown
 * keys are refused (`additionalProperties: false`), actions are a `oneOf` on `kind`.
 *
 * @example
 * jsonSchemaFor("NodeSpec").required // ["id", "kind"]
 * jsonSchemaFor("ToolSpec", { irVersion: "1.0.0" }) // replay_policy: must_stub | rerun | skip
 */
export function jsonSchemaFor(model: ModelName, options: JsonSchemaOptions = {}): JsonSchema {
  const irVersion = options.irVersion ?? IR_VERSION;
  const replayPolicies = isAtLeast11(irVersion) ? REPLAY_POLICIES_1_1 : SEED_REPLAY_POLICIES;
  const schema = z.toJSONSchema(MODELS[model], {
    io: "input",
    target: "draft-2020-12",
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema === ReplayPolicySchema) jsonSchema.enum = [...replayPolicies];
      // The default is the same policy in either spelling (answer from the recorded call).
      else if (zodSchema === ToolSpecSchema.shape.replay_policy)
        jsonSchema.default = replayPolicies[0];
    },
  }) as JsonSchema;
  return { ...schema, title: model, $comment: `Keel IR ${irVersion}` };
}

/** The names of every model, in the order `keel ir schema --list` shows them. */
export function modelNames(): ModelName[] {
  return Object.keys(MODELS) as ModelName[];
}

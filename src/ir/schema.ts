import { z } from "zod";
import { MODELS, type ModelName } from "./models/index.js";
import { IR_VERSION } from "./version.js";

/** A JSON Schema document (draft 2020-12). */
export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema (draft 2020-12) of an IR model, for validating documents in other languages.
 * It describes the wire form: defaulted fields are optional and carry their `default`, unknown
 * keys are refused (`additionalProperties: false`), actions are a `oneOf` on `kind`.
 *
 * @example
 * jsonSchemaFor("NodeSpec").required // ["id", "kind"]
 */
export function jsonSchemaFor(model: ModelName): JsonSchema {
  const schema = z.toJSONSchema(MODELS[model], {
    io: "input",
    target: "draft-2020-12",
  }) as JsonSchema;
  return { ...schema, title: model, $comment: `Keel IR ${IR_VERSION}` };
}

/** The names of every model, in the order `keel ir schema --list` shows them. */
export function modelNames(): ModelName[] {
  return Object.keys(MODELS) as ModelName[];
}

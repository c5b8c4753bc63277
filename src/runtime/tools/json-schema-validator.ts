import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { renderActual, valueAt } from "../../ir/problems.js";
import type { ValidationProblem } from "../validation/problems.js";

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv | Ajv2020) => void;

const DRAFT_07 = /json-schema\.org\/draft-0[467]\/schema/;

/** A compiled JSON Schema that reports every problem as data. */
export type CompiledSchema = (value: unknown) => ValidationProblem[];

/**
 * Compiles a tool's JSON Schema with ajv (draft 2020-12 by default, draft-07 when the schema's
 * `$schema` says so; standard formats such as `email` and `date-time` checked). Throws ajv's
 * error when the schema itself is invalid; the registry turns that into `TOOL_SPEC_INVALID`.
 */
export function compileJsonSchema(schema: Record<string, unknown>): CompiledSchema {
  const draft07 = typeof schema.$schema === "string" && DRAFT_07.test(schema.$schema);
  const ajv = draft07 ? draft07Ajv() : draft2020Ajv();
  const validate: ValidateFunction = ajv.compile(schema);
  return (value) => {
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => problemFromAjv(error, value));
  };
}

let ajv2020: Ajv2020 | undefined;
let ajv07: Ajv | undefined;

function draft2020Ajv(): Ajv2020 {
  if (!ajv2020) {
    ajv2020 = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv2020);
  }
  return ajv2020;
}

function draft07Ajv(): Ajv {
  if (!ajv07) {
    ajv07 = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv07);
  }
  return ajv07;
}

function problemFromAjv(error: ErrorObject, root: unknown): ValidationProblem {
  const segments = pointerSegments(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required": {
      const field = String(params.missingProperty);
      return {
        code: "missing",
        path: toPointer([...segments, field]),
        message: `Field "${field}" is required.`,
        expected: "a value",
        actual: "missing",
        hint: `Add "${field}" to the tool input.`,
      };
    }
    case "additionalProperties": {
      const field = String(params.additionalProperty);
      return {
        code: "extra_forbidden",
        path: toPointer([...segments, field]),
        message: `Unknown key "${field}".`,
        expected: "no such key",
        actual: renderActual(valueAt(root, [...segments, field])),
        hint: "Remove the key, or check its spelling against the tool's input schema.",
      };
    }
    default:
      return {
        code: `schema_${error.keyword}`,
        path: toPointer(segments),
        message: `Value ${error.message ?? "is invalid"}.`,
        expected: describeExpected(error),
        actual: renderActual(valueAt(root, segments)),
        hint: "Make the value satisfy the tool's JSON Schema.",
      };
  }
}

function describeExpected(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "type") return String(params.type);
  if (error.keyword === "enum")
    return (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(" | ");
  if (error.keyword === "format") return `format ${String(params.format)}`;
  if (error.keyword === "const") return JSON.stringify(params.allowedValue);
  const limit = params.limit ?? params.comparison;
  return limit === undefined
    ? error.keyword
    : `${error.keyword} ${String(params.comparison ?? "")} ${String(params.limit ?? "")}`.trim();
}

function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function toPointer(segments: readonly string[]): string {
  if (segments.length === 0) return "/";
  return segments.map((s) => `/${s.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

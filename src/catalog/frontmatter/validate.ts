import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { NodeKind } from "../model.js";
import { frontmatterBaseSchema, frontmatterSchema } from "./schemas.js";

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => void;

/** One problem of a frontmatter block: where (JSON Pointer) and what. */
export interface FrontmatterProblem {
  path: string;
  message: string;
}

let ajv: Ajv2020 | undefined;
const validators = new Map<NodeKind, ValidateFunction>();

// Compiling is the expensive part (a scan that re-reads ten files would otherwise spend most of
// its time here): the shared base is compiled once, and each kind only when a node needs it.
function validatorFor(kind: NodeKind): ValidateFunction {
  let validate = validators.get(kind);
  if (validate) return validate;
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: false, code: { optimize: false } });
    addFormats(ajv);
    ajv.addSchema(frontmatterBaseSchema());
  }
  validate = ajv.compile(frontmatterSchema(kind, false));
  validators.set(kind, validate);
  return validate;
}

/**
 * Checks a parsed frontmatter block against its kind's schema and returns every problem
 * (empty when valid).
 *
 * @example
 * validateFrontmatter("note", { name: "x" });
 * // [{ path: "", message: "must have required property 'description'" }, …]
 */
export function validateFrontmatter(
  kind: NodeKind,
  frontmatter: Readonly<Record<string, unknown>>,
): FrontmatterProblem[] {
  const validate = validatorFor(kind);
  if (validate(frontmatter)) return [];
  return (validate.errors ?? [])
    .filter((error: ErrorObject) => error.keyword !== "allOf" && error.keyword !== "anyOf")
    .map((error: ErrorObject) => ({
      path: error.instancePath,
      message: error.message ?? error.keyword,
    }));
}

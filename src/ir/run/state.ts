import type { z } from "zod";
import { KeelError } from "../../core/index.js";
import type { IRDocument } from "../models/index.js";
import { hintFor, type Problem, renderActual, tooDeepProblem } from "../problems.js";

/**
 * Run-time types of state fields. `state_schema` maps a field to one of these primitive type
 * strings (the seed's Python names, with their JSON Schema aliases).
 */
const CHECKS: Record<string, (value: unknown) => boolean> = {
  str: (v) => typeof v === "string",
  int: (v) => Number.isSafeInteger(v),
  float: (v) => typeof v === "number" && Number.isFinite(v),
  bool: (v) => typeof v === "boolean",
  // Stargraph's `bytes`: JSON has no bytes, so the value travels as text (base64 by convention).
  bytes: (v) => typeof v === "string",
  list: (v) => Array.isArray(v),
  dict: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
  any: () => true,
};
const ALIASES: Record<string, string> = {
  string: "str",
  integer: "int",
  number: "float",
  boolean: "bool",
  array: "list",
  object: "dict",
};

/** The state type strings `state_schema` accepts (each also with a trailing `?`: optional). */
export const STATE_TYPES: readonly string[] = [...Object.keys(CHECKS), ...Object.keys(ALIASES)];

/**
 * A `state_schema` type string read: its primitive type and whether a new run's input must give
 * the field. Every field is required, as in the Pydantic model the seed compiles the schema to;
 * a trailing `?` (`"str?"`) makes it optional (absent or null), for a field a node fills in.
 *
 * @example
 * stateFieldType("float?"); // { type: "float", optional: true }
 */
export function stateFieldType(text: string): { type: string; optional: boolean } {
  const optional = text.endsWith("?");
  const base = optional ? text.slice(0, -1) : text;
  return { type: ALIASES[base] ?? base, optional };
}

/** Checks one field's value; returns the expected type when it does not fit. */
export type FieldCheck = (field: string, value: unknown) => string | undefined;

/** How a compiled document checks its state: the declared fields and a check per field. */
export interface StateShape {
  fields: readonly string[];
  /** The fields a new run's input must give. */
  required: readonly string[];
  check: FieldCheck;
}

/** Registered state classes: a name usable as `state_class`, and the zod object it stands for. */
export type StateClasses = Record<string, z.ZodObject>;

/**
 * The state shape of a document: from `state_schema`, or from a registered `state_class`.
 * Returns problems (unknown type strings, an unregistered class, both given) instead.
 */
export function stateShapeOf(
  doc: IRDocument,
  classes: StateClasses,
): { shape?: StateShape; problems: Problem[] } {
  const schemaFields = Object.entries(doc.state_schema);
  if (doc.state_class !== null) {
    if (schemaFields.length > 0) {
      return {
        problems: [
          problem(
            "state_conflict",
            "/state_class",
            "state_class and a non-empty state_schema are mutually exclusive.",
            "one of them",
            doc.state_class,
          ),
        ],
      };
    }
    const schema = classes[doc.state_class];
    if (!schema) {
      return {
        problems: [
          problem(
            "unknown_state_class",
            "/state_class",
            `No state class "${doc.state_class}" is registered.`,
            Object.keys(classes).join(" | ") || "a registered state class",
            doc.state_class,
          ),
        ],
      };
    }
    const shape = schema.shape as Record<string, z.ZodType>;
    return {
      shape: {
        fields: Object.keys(shape),
        required: Object.keys(shape).filter(
          (field) => !(shape[field] as z.ZodType).safeParse(undefined).success,
        ),
        check: (field, value) => {
          const fieldSchema = shape[field];
          if (!fieldSchema) return "a declared field";
          return fieldSchema.safeParse(value).success
            ? undefined
            : `a value of ${doc.state_class}.${field}`;
        },
      },
      problems: [],
    };
  }
  const problems: Problem[] = [];
  const types = new Map<string, string>();
  const required: string[] = [];
  const optional = new Set<string>();
  for (const [field, type] of schemaFields) {
    const read = stateFieldType(type);
    const canonical = read.type;
    if (read.optional) optional.add(field);
    else required.push(field);
    if (!(canonical in CHECKS)) {
      problems.push(
        problem(
          "unknown_state_type",
          `/state_schema/${field.replaceAll("~", "~0").replaceAll("/", "~1")}`,
          `State field "${field}" has unknown type "${type}".`,
          `${STATE_TYPES.join(" | ")} (optional with a trailing ?)`,
          type,
        ),
      );
    }
    types.set(field, canonical);
  }
  if (problems.length > 0) return { problems };
  return {
    shape: {
      fields: [...types.keys()],
      required,
      check: (field, value) => {
        const type = types.get(field);
        if (type === undefined) return "a field declared in state_schema";
        if (value === null && optional.has(field)) return undefined;
        return CHECKS[type]?.(value) ? undefined : type;
      },
    },
    problems: [],
  };
}

/** Problem codes for a value of the wrong state type (Pydantic's names for the same mistakes). */
const TYPE_CODES: Record<string, string> = {
  str: "string_type",
  int: "int_type",
  float: "float_type",
  bool: "bool_type",
  list: "list_type",
  dict: "dict_type",
};

/**
 * Checks a run's input (or an interrupt's answer) against the shape before the run is touched,
 * returning every problem: not an object (`dict_type` at `/`), a field the state does not declare
 * (`extra_forbidden` at `/<field>`), a value of the wrong type (`int_type`, … or `state_type` for
 * a state class, at `/<field>`). Empty when it fits.
 */
export function stateProblems(
  shape: StateShape,
  input: unknown,
  what: string,
  options: { start?: boolean } = {},
): Problem[] {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    return [
      {
        code: "dict_type",
        path: "/",
        message: `${what} must be a JSON object of state fields.`,
        expected: `an object with fields ${shape.fields.join(", ") || "(none declared)"}`,
        actual: renderActual(input),
        hint: `Pass an object, e.g. {${shape.fields[0] ? `"${shape.fields[0]}": …` : ""}}.`,
      },
    ];
  }
  // Before anything walks it: a value deeper than the limit would overflow the stack later.
  const deep = tooDeepProblem(input, what);
  if (deep) return [deep];
  const declared = new Set(shape.fields);
  const problems: Problem[] = [];
  // A new run starts from its input alone: a required field it leaves out would reach the rules
  // and nodes as undefined (a refund of "rf-undefined-NaN"), so it is refused up front.
  if (options.start) {
    for (const field of shape.required) {
      if (Object.hasOwn(input, field)) continue;
      problems.push({
        code: "missing",
        path: `/${field.replaceAll("~", "~0").replaceAll("/", "~1")}`,
        message: `${what} lacks "${field}", a required state field.`,
        expected: `a value for ${field}`,
        actual: "(absent)",
        hint: 'Give the field, or mark it optional in state_schema with a trailing "?" (e.g. "str?") when a node fills it in.',
      });
    }
  }
  for (const [field, value] of Object.entries(input)) {
    const path = `/${field.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    if (!declared.has(field)) {
      problems.push({
        code: "extra_forbidden",
        path,
        message: `${what} names "${field}", which is not a state field.`,
        expected: shape.fields.join(" | ") || "no fields",
        actual: renderActual(value),
        hint: "Use the fields of the document's state_schema (or state_class), or declare this one.",
      });
      continue;
    }
    const expected = shape.check(field, value);
    if (expected === undefined) continue;
    problems.push({
      code: TYPE_CODES[expected] ?? "state_type",
      path,
      message: `State field "${field}" must be ${expected}; got ${renderActual(value)}.`,
      expected,
      actual: renderActual(value),
      hint: "Pass a value of the declared type, or change state_schema.",
    });
  }
  return problems;
}

/**
 * Checks a state update (or the run's input) against the shape; a wrong value is a clear run
 * error (`IR_STATE_TYPE`) naming the field, the expected type, the value and where it came from.
 */
export function assertStateUpdate(
  shape: StateShape,
  update: Record<string, unknown>,
  source: string,
): void {
  for (const [field, value] of Object.entries(update)) {
    const expected = shape.check(field, value);
    if (expected === undefined) continue;
    throw new KeelError(
      "IR_STATE_TYPE",
      `State field "${field}" from ${source} must be ${expected}; got ${renderActual(value)}.`,
      {
        details: { field, expected, actual: value, source },
        hint: "Fix the node (or the input) so it writes the declared type, or change state_schema.",
      },
    );
  }
}

function problem(
  code: string,
  path: string,
  message: string,
  expected: string,
  actual: unknown,
): Problem {
  return { code, path, message, expected, actual: renderActual(actual), hint: hintFor(code) };
}

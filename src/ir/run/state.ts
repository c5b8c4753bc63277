import type { z } from "zod";
import { KeelError } from "../../core/index.js";
import type { IRDocument } from "../models/index.js";
import { hintFor, type Problem, renderActual } from "../problems.js";

/**
 * Run-time types of state fields. `state_schema` maps a field to one of these primitive type
 * strings (the seed's Python names, with their JSON Schema aliases).
 */
const CHECKS: Record<string, (value: unknown) => boolean> = {
  str: (v) => typeof v === "string",
  int: (v) => Number.isSafeInteger(v),
  float: (v) => typeof v === "number" && Number.isFinite(v),
  bool: (v) => typeof v === "boolean",
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

/** The state type strings `state_schema` accepts. */
export const STATE_TYPES: readonly string[] = [...Object.keys(CHECKS), ...Object.keys(ALIASES)];

/** Checks one field's value; returns the expected type when it does not fit. */
export type FieldCheck = (field: string, value: unknown) => string | undefined;

/** How a compiled document checks its state: the declared fields and a check per field. */
export interface StateShape {
  fields: readonly string[];
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
  for (const [field, type] of schemaFields) {
    const canonical = ALIASES[type] ?? type;
    if (!(canonical in CHECKS)) {
      problems.push(
        problem(
          "unknown_state_type",
          `/state_schema/${field.replaceAll("~", "~0").replaceAll("/", "~1")}`,
          `State field "${field}" has unknown type "${type}".`,
          STATE_TYPES.join(" | "),
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
      check: (field, value) => {
        const type = types.get(field);
        if (type === undefined) return "a field declared in state_schema";
        return CHECKS[type]?.(value) ? undefined : type;
      },
    },
    problems: [],
  };
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

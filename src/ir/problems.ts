import type { z } from "zod";
import { jsonTooDeepAt, MAX_JSON_DEPTH } from "../core/index.js";

/**
 * One validation problem, as data (the CLI formats it). `path` is an RFC 6901 JSON Pointer into
 * the document (`/` for the whole document); `expected` and `actual` are short renderings.
 */
export interface Problem {
  /** Stable machine-readable code, e.g. `missing`, `extra_forbidden`, `version_mismatch`. */
  code: string;
  path: string;
  message: string;
  expected: string;
  actual: string;
  hint: string;
}

/**
 * An RFC 6901 JSON Pointer for a path, escaping `~` as `~0` and `/` as `~1`. The empty path
 * (the whole document) is written `/`, as the seed does for parse errors.
 *
 * @example
 * jsonPointer(["rules", 0, "a/b~c"]) // "/rules/0/a~1b~0c"
 */
export function jsonPointer(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "/";
  return path
    .map((segment) => `/${String(segment).replaceAll("~", "~0").replaceAll("/", "~1")}`)
    .join("");
}

/**
 * The `too_deep` problem for a value nested deeper than `MAX_JSON_DEPTH` (its path under
 * `base`), or undefined. Checked before anything walks the value recursively.
 *
 * @example
 * tooDeepProblem(JSON.parse("[".repeat(5000) + "]".repeat(5000)), "The run's input")?.code // "too_deep"
 */
export function tooDeepProblem(value: unknown, what: string, base = ""): Problem | undefined {
  const at = jsonTooDeepAt(value);
  if (at === undefined) return undefined;
  const path = at === "/" ? base || "/" : `${base}${at}`;
  return {
    code: "too_deep",
    path,
    message: `${what} is nested more than ${MAX_JSON_DEPTH} levels deep (at ${path}).`,
    expected: `arrays and objects nested at most ${MAX_JSON_DEPTH} levels deep`,
    actual: `deeper than ${MAX_JSON_DEPTH} levels`,
    hint: "Flatten the value (or pass the deep part as a string).",
  };
}

/** A short rendering of a value for `actual`: JSON, cut at 60 characters; `missing` when absent. */
export function renderActual(value: unknown): string {
  if (value === undefined) return "missing";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    // A cycle or a value too deep to render: String() of a deep array would overflow too.
    text = Array.isArray(value) ? "[…]" : typeof value === "object" ? "{…}" : typeof value;
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Hints keyed on problem code: what to do about it. */
const HINTS: Record<string, string> = {
  json_invalid: "Fix the JSON syntax at the reported position (a linter or `jq .` shows it).",
  missing: "Add the required field.",
  extra_forbidden: "Remove the key, or check its spelling against the model (keys are snake_case).",
  string_type: "Use a JSON string.",
  int_type: "Use a whole number.",
  float_type: "Use a JSON number.",
  bool_type: "Use true or false.",
  list_type: "Use a JSON array.",
  dict_type: "Use a JSON object.",
  model_type: "Use a JSON object with the model's fields.",
  literal_error: "Use one of the expected values.",
  union_type: "Use a value of one of the expected types.",
  union_tag_not_found:
    'Add a "kind" naming the action (goto, halt, parallel, retry, assert, retract, interrupt).',
  union_tag_invalid: "Use one of the action kinds listed in `expected`.",
  nested_action:
    "Actions may not contain actions (FR-11): move the inner action into the rule's own `then` list, or into another rule.",
  greater_than_equal: "Use a larger value.",
  less_than_equal: "Use a smaller value.",
  string_pattern_mismatch: "Write the value in the expected format.",
  invalid_id:
    "Ids are slugs: lowercase letters and digits first, then letters, digits, `_`, `-` or `.`, 1 to 128 characters.",
  duplicate_id: "Give each entry of the list its own id.",
  version_invalid: "Write ir_version as MAJOR.MINOR.PATCH.",
  version_mismatch: "Use a document written for this IR major version, or migrate it.",
  unknown_node: "Point at the id of a node declared in `nodes`, or declare the node.",
  unknown_node_kind:
    "Use a registered node kind or a user-code reference `module/path:ExportName`; register more with `keel run --kinds <module>` (library: `nodeKinds`).",
  invalid_on_timeout: 'Use "halt" or "goto:<node_id>".',
  unknown_strategy: "Use all, any, race or quorum.",
  rule_invalid:
    "Write `when` as CLIPS conditions: patterns over the state's facts, such as (severity ?s&:(>= ?s 4)) or (node-id triage), and (test …) expressions (docs/rules.md).",
  when_invalid:
    "Write the `when` mapping as {node: <node-id>, <state-field>: <value>} with string, number or boolean values, or write CLIPS conditions as a string.",
  cypher_unportable:
    "Keep to the portable Cypher subset (docs/ir.md): no apoc/gds/db procedures, an upper bound on every variable-length path (*1..5), named YIELD columns, no CALL subqueries, pattern comprehensions, map projections, shortestPath or LOAD CSV.",
  invalid_slots:
    'Write slots as the JSON text of an object (`"{\\"queue\\":\\"refunds\\"}"`), or "" for a fact without fields.',
};

/** The hint for a problem code, with a generic fallback. */
export function hintFor(code: string): string {
  return HINTS[code] ?? "See docs/ir.md for the model's fields and types.";
}

/** Reads the value at `path` in `root`, or undefined when the path does not exist. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = root;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/**
 * Parse parameters every IR parse uses. zod reports a non-number given to an integer field as
 * "expected number"; this names it "int", so the problem code is `int_type` as in Pydantic.
 */
export const PARSE_PARAMS = {
  error(issue: z.core.$ZodRawIssue): undefined {
    const raw = issue as { inst?: { _zod?: { def?: { format?: string } } }; expected?: string };
    if (issue.code === "invalid_type" && raw.inst?._zod?.def?.format === "safeint") {
      raw.expected = "int";
    }
    return undefined;
  },
};

const TYPE_CODES: Record<string, string> = {
  string: "string_type",
  int: "int_type",
  number: "float_type",
  boolean: "bool_type",
  array: "list_type",
  object: "model_type",
  record: "dict_type",
};

function problem(
  code: string,
  path: readonly PropertyKey[],
  fields: Omit<Problem, "code" | "path" | "hint">,
): Problem {
  // The whole document is "" (RFC 6901), as Pydantic's loc () renders.
  return { code, path: path.length === 0 ? "" : jsonPointer(path), ...fields, hint: hintFor(code) };
}

function describeValues(values: readonly unknown[]): string {
  return values.map((value) => JSON.stringify(value)).join(" | ");
}

/**
 * Turns zod issues into problems, with Pydantic's error-type names as codes so tools written
 * for the original system keep working. `input` is the document, used to render `actual`.
 */
export function problemsFromIssues(issues: readonly z.core.$ZodIssue[], input: unknown): Problem[] {
  return issues.flatMap((issue) => fromIssue(issue, input));
}

function fromIssue(issue: z.core.$ZodIssue, input: unknown): Problem[] {
  const path = issue.path;
  const actualValue = valueAt(input, path);
  const actual = renderActual(actualValue);
  if (
    (issue.code === "invalid_type" || issue.code === "invalid_value") &&
    actualValue === undefined
  ) {
    const field = String(path[path.length - 1] ?? "value");
    const expected = issue.code === "invalid_type" ? issue.expected : describeValues(issue.values);
    return [
      problem("missing", path, { message: `Field "${field}" is required.`, expected, actual }),
    ];
  }
  switch (issue.code) {
    case "invalid_type": {
      const code = TYPE_CODES[issue.expected] ?? `${issue.expected}_type`;
      return [
        problem(code, path, {
          message: `Expected ${issue.expected}, got ${typeName(actualValue)}.`,
          expected: issue.expected,
          actual,
        }),
      ];
    }
    case "unrecognized_keys":
      return issue.keys.map((key) =>
        problem("extra_forbidden", [...path, key], {
          message: `Unknown key "${key}".`,
          expected: "no such key",
          actual: renderActual(valueAt(input, [...path, key])),
        }),
      );
    case "invalid_union": {
      if ("discriminator" in issue && issue.discriminator) {
        const objectPath = path.slice(0, -1);
        const tag = valueAt(input, path);
        const options = describeValues((issue as { options?: unknown[] }).options ?? []);
        if (tag === undefined) {
          return [
            problem("union_tag_not_found", objectPath, {
              message: `No "${issue.discriminator}" to tell which variant this is.`,
              expected: options,
              actual: renderActual(valueAt(input, objectPath)),
            }),
          ];
        }
        // At the action, as Pydantic places it: the whole variant is what is unknown.
        return [
          problem("union_tag_invalid", objectPath, {
            message: `Unknown ${issue.discriminator} ${renderActual(tag)}.`,
            expected: options,
            actual,
          }),
        ];
      }
      const expected = [
        ...new Set(
          issue.errors.flatMap((branch) =>
            branch.map((inner) => ("expected" in inner ? String(inner.expected) : inner.code)),
          ),
        ),
      ].join(" | ");
      return [
        problem("union_type", path, {
          message: `Expected ${expected}, got ${typeName(actualValue)}.`,
          expected,
          actual,
        }),
      ];
    }
    case "invalid_value":
      return [
        problem("literal_error", path, {
          message: `Expected one of ${describeValues(issue.values)}.`,
          expected: describeValues(issue.values),
          actual,
        }),
      ];
    case "too_small":
    case "too_big": {
      const small = issue.code === "too_small";
      const bound = small ? issue.minimum : issue.maximum;
      const op = small ? ">=" : "<=";
      const numeric =
        issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint";
      const code = numeric
        ? small
          ? "greater_than_equal"
          : "less_than_equal"
        : `${issue.origin}_too_${small ? "short" : "long"}`;
      return [
        problem(code, path, {
          message: numeric
            ? `Expected a value ${op} ${String(bound)}.`
            : `Expected a length ${op} ${String(bound)}.`,
          expected: `${op} ${String(bound)}`,
          actual,
        }),
      ];
    }
    case "invalid_format":
      return [
        problem("string_pattern_mismatch", path, {
          message: `Not in the expected format: ${actual}.`,
          // A schema's own message names the format in words; zod's default only has the regex.
          expected: issue.message.startsWith("Invalid string")
            ? String(("pattern" in issue && issue.pattern) || issue.format)
            : issue.message,
          actual,
        }),
      ];
    default:
      return [
        problem("value_error", path, { message: issue.message, expected: "a valid value", actual }),
      ];
  }
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && !Number.isInteger(value)) return "number (not whole)";
  return typeof value;
}

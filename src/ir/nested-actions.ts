import { ACTION_KINDS } from "./models/index.js";
import { hintFor, jsonPointer, type Problem, renderActual } from "./problems.js";

const KINDS: ReadonlySet<unknown> = new Set(ACTION_KINDS);

// Fields whose value is free-form data, where an object with a "kind" is just data.
const FREE_FORM_FIELDS: ReadonlySet<string> = new Set(["interrupt_payload"]);

/**
 * Finds actions nested inside actions (FR-11) in raw, unvalidated input: any object with an
 * action `kind` found under a field of an action in `rules[*].then[*]`. The generic problems the
 * schema reports at those places (unknown key, wrong type) are replaced by one `nested_action`.
 */
export function findNestedActions(input: unknown): Problem[] {
  const problems: Problem[] = [];
  const rules = field(input, "rules");
  if (!Array.isArray(rules)) return problems;
  rules.forEach((rule, ruleIndex) => {
    const then = field(rule, "then");
    if (!Array.isArray(then)) return;
    then.forEach((action, actionIndex) => {
      if (!isObject(action)) return;
      for (const key in action) {
        const value = action[key];
        if (FREE_FORM_FIELDS.has(key) || value === null || typeof value !== "object") continue;
        if (!Object.hasOwn(action, key)) continue;
        const found = findAction(value, ["rules", ruleIndex, "then", actionIndex, key]);
        if (found) problems.push(nestedActionProblem(found, value));
      }
    });
  });
  return problems;
}

/**
 * The path of the first action-shaped object in `value`, searching arrays and objects. Scalars
 * return at once, before any path is built: almost every field of a real document is one.
 */
function findAction(value: unknown, path: PropertyKey[]): PropertyKey[] | undefined {
  if (value === null || typeof value !== "object") return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (item === null || typeof item !== "object") continue;
      const found = findAction(item, [...path, index]);
      if (found) return found;
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  if (KINDS.has(record.kind)) return path;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const inner = record[key];
    if (inner === null || typeof inner !== "object") continue;
    const found = findAction(inner, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

function nestedActionProblem(actionPath: PropertyKey[], fieldValue: unknown): Problem {
  const fieldPath = actionPath.slice(0, 5);
  return {
    code: "nested_action",
    path: jsonPointer(fieldPath),
    message: `An action may not contain another action (FR-11); found one at ${jsonPointer(actionPath)}.`,
    expected: "no nested actions",
    actual: renderActual(fieldValue),
    hint: hintFor("nested_action"),
  };
}

function field(value: unknown, key: string): unknown {
  return isObject(value) ? value[key] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

import { KeelError } from "../core/index.js";
import type { IRDocument, RuleSpec } from "./models/index.js";
import { pythonFloatRepr } from "./python-json.js";

/**
 * The `when` mapping sugar of IR 1.1.0: `{node: work, verdict: pass}` stands for the CLIPS
 * conditions `(node-id (id work)) (verdict (value "pass"))`. The reserved `node` key names the
 * node the rule fires on; every other key is a state field (dots written `-`, as the field's
 * template is named) compared as text with the field's mirrored `value` slot. A string `when`
 * is CLIPS already and passes through unchanged.
 */

/** The reserved key of the sugar: the node the rule fires on. */
export const WHEN_NODE_KEY = "node";

const NODE_REF = /^[A-Za-z0-9_.-]+$/;
const TEMPLATE_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** A rule's `when`: CLIPS text, or the mapping sugar. */
export type When = RuleSpec["when"];

/**
 * The CLIPS conditions a `when` stands for: a string as it is, a mapping compiled. Throws
 * `IR_WHEN_INVALID` on an empty mapping, a `node` that is not a node id, a key that cannot be a
 * template name, or a value that is not a string, number or boolean.
 *
 * @example
 * compileWhen({ node: "work", phase_verdict: "refine" })
 * // '(node-id (id work)) (phase_verdict (value "refine"))'
 */
export function compileWhen(when: When): string {
  if (typeof when === "string") return when;
  const problem = whenProblem(when);
  if (problem) throw new KeelError("IR_WHEN_INVALID", problem, { details: { when } });
  const patterns: string[] = [];
  if (Object.hasOwn(when, WHEN_NODE_KEY)) patterns.push(`(node-id (id ${when[WHEN_NODE_KEY]}))`);
  for (const [key, value] of Object.entries(when)) {
    if (key === WHEN_NODE_KEY) continue;
    patterns.push(`(${templateName(key)} (value "${clipsStringBody(whenText(value))}"))`);
  }
  return patterns.join(" ");
}

/**
 * Why a mapping `when` cannot compile, or undefined when it can (a string always can here; the
 * rule engine checks CLIPS text).
 */
export function whenProblem(when: When): string | undefined {
  if (typeof when === "string") return undefined;
  const keys = Object.keys(when);
  if (keys.length === 0) {
    return "The `when` mapping is empty: give a node and/or state-field conditions, e.g. {node: work, verdict: pass}.";
  }
  if (Object.hasOwn(when, WHEN_NODE_KEY)) {
    const node = when[WHEN_NODE_KEY];
    if (typeof node !== "string" || !NODE_REF.test(node)) {
      return `when.node must be a node id ([A-Za-z0-9_.-]+), not ${JSON.stringify(node) ?? String(node)}.`;
    }
  }
  for (const key of keys) {
    if (key === WHEN_NODE_KEY) continue;
    if (!TEMPLATE_NAME.test(templateName(key))) {
      return `when key ${JSON.stringify(key)} is not a valid fact-template name ([A-Za-z_][A-Za-z0-9_.-]*).`;
    }
    const value = when[key];
    if (!["string", "number", "boolean"].includes(typeof value)) {
      return `when.${key} must be a string, number or boolean (compared as text with the mirrored value), not ${Array.isArray(value) ? "a list" : value === null ? "null" : `a ${typeof value}`}.`;
    }
  }
  return undefined;
}

/**
 * The node a mapping `when` names, or null (CLIPS text declares none).
 *
 * @example
 * whenNodeRef({ node: "work" }) // "work"
 */
export function whenNodeRef(when: When): string | null {
  if (typeof when === "string") return null;
  const node = when[WHEN_NODE_KEY];
  return typeof node === "string" ? node : null;
}

/** `(node-id (id NAME))`, with or without a `?var <-` binding, anywhere in CLIPS text. */
const NODE_ID_PATTERN = /\(node-id\s+\(id\s+([A-Za-z0-9_.-]+)\s*\)\s*\)/;

/**
 * Fills each rule's `node_id` (IR 1.1.0) that is null from its `when`: the node of the
 * mapping sugar, or the first `(node-id (id NAME))` pattern of CLIPS text — when that names a
 * node of the document. Rules that declare `node_id` keep it. Returns a new document.
 *
 * @example
 * backfillRuleNodeIds(doc).rules.map((r) => r.node_id) // ["work", null]
 */
export function backfillRuleNodeIds(doc: IRDocument): IRDocument {
  const nodes = new Set(doc.nodes.map((node) => node.id));
  const rules = doc.rules.map((rule) => {
    if (rule.node_id !== null) return rule;
    const candidate =
      typeof rule.when === "string"
        ? (NODE_ID_PATTERN.exec(rule.when)?.[1] ?? null)
        : whenNodeRef(rule.when);
    return candidate !== null && nodes.has(candidate) ? { ...rule, node_id: candidate } : rule;
  });
  return { ...doc, rules };
}

/** A state field's template name: dots become `-` (CLIPS names hold no dots). */
export function templateName(field: string): string {
  return field.replaceAll(".", "-");
}

/** The text a scalar is compared as: what Python's `str()` gives (`True`, `2`, `0.5`). */
export function whenText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") {
    return Number.isInteger(value) && Number.isSafeInteger(value)
      ? String(value)
      : pythonFloatRepr(value);
  }
  return String(value);
}

/** `text` escaped to sit between the quotes of a CLIPS string. */
export function clipsStringBody(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll('"', '\\"');
}

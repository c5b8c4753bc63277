import { type FactInput, type RuleEngine, str } from "../../rules/index.js";
import { deepEqual } from "../dump.js";
import { type FactStyle, NODE_ID_SLOT, VALUE_SLOT } from "../template-facts.js";
import { templateName } from "../when.js";
import { pythonStr } from "./python-str.js";

/**
 * Mirrors the run's state into the rule engine's working memory: each state field `f` with value
 * `v` is the ordered fact `(f v)`, and the current node is `(node-id <id>)`. A field's fact is
 * replaced only when its value changes, so CLIPS refraction keeps a rule from firing again on
 * facts that did not change. `(node-id <id>)` is asserted anew on every arrival at a node, even
 * the same node again (a retry): arriving is an event, so rules keyed on the node fire again.
 *
 * Values: strings are CLIPS strings (`(message "disk full")`), integers and floats numbers,
 * booleans the symbols TRUE/FALSE, lists multifields (`(tags a b)`), null `nil`, objects their
 * JSON text as a string.
 *
 * In the `template` fact style (IR 1.1.0, Stargraph's documents) the same facts are template
 * facts: `(f (value "<text>"))`, the value as Python's `str()` writes it, and
 * `(node-id (id <id>))`.
 */
export type Mirror = Record<string, { id: number | null; value: unknown }>;

/** The relation of the current-node fact. */
export const NODE_ID_RELATION = "node-id";

export function mirrorState(
  engine: RuleEngine,
  previous: Mirror,
  state: Record<string, unknown>,
  fields: readonly string[],
  nodeId: string,
  style: FactStyle = "ordered",
): Mirror {
  const next: Mirror = { ...previous };
  const put = (relation: string, value: unknown, fact: () => FactInput, always = false) => {
    const before = previous[relation];
    if (!always && before && deepEqual(before.value, value)) return;
    if (before?.id != null) engine.retract(before.id);
    next[relation] = { id: engine.assert(fact()), value };
  };
  const templates = style === "template";
  for (const field of fields) {
    const value = state[field];
    if (value === undefined) continue;
    put(field, value, () =>
      templates
        ? { template: templateName(field), slots: { [VALUE_SLOT]: str(pythonStr(value)) } }
        : { relation: field, fields: toFields(value) },
    );
  }
  put(
    NODE_ID_RELATION,
    nodeId,
    () =>
      templates
        ? { template: NODE_ID_RELATION, slots: { [NODE_ID_SLOT]: nodeId } }
        : { relation: NODE_ID_RELATION, fields: [nodeId] },
    true,
  );
  return next;
}

function toFields(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.map(toAtom);
  return [toAtom(value)];
}

/** A JSON value as a CLIPS field: strings as CLIPS strings, objects as their JSON text. */
export function toAtom(value: unknown): unknown {
  if (typeof value === "string") return str(value);
  if (value !== null && typeof value === "object") return str(JSON.stringify(value));
  return value;
}

/**
 * Retracts the facts matching a simple CLIPS pattern `(relation field …)`, where `?x` matches one
 * field, `$?x` any number, and other tokens match a field's printed form. Returns how many.
 */
export function retractMatching(engine: RuleEngine, pattern: string): number {
  const wanted = tokens(pattern);
  let count = 0;
  for (const fact of engine.facts()) {
    if (matches(wanted, tokens(fact.text))) {
      if (engine.retract(fact.id)) count++;
    }
  }
  return count;
}

function tokens(text: string): string[] {
  const inner = text.trim().replace(/^\(/, "").replace(/\)$/, "");
  return inner.match(/"(?:[^"\\]|\\.)*"|[^\s()]+/g) ?? [];
}

function matches(pattern: readonly string[], fact: readonly string[]): boolean {
  if (pattern.length === 0) return fact.length === 0;
  const [head, ...rest] = pattern;
  if (head?.startsWith("$?")) {
    for (let skip = 0; skip <= fact.length; skip++)
      if (matches(rest, fact.slice(skip))) return true;
    return false;
  }
  if (fact.length === 0) return false;
  if (head !== undefined && !head.startsWith("?") && head !== fact[0]) return false;
  return matches(rest, fact.slice(1));
}

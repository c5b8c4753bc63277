import { readForms } from "../rules/index.js";
import type { IRDocument } from "./models/index.js";
import { isAtLeast11 } from "./version.js";
import { templateName, WHEN_NODE_KEY, whenProblem } from "./when.js";

/**
 * How a document's rules see the run's state.
 *
 * - `ordered` (the seed's IR 1.0.0): each field `f` is the ordered fact `(f <value>)`, the current
 *   node `(node-id <id>)`.
 * - `template` (Stargraph's, IR 1.1.0): each field `f` is the template fact
 *   `(f (value "<text>"))`, its value as text, and the current node `(node-id (id <id>))`.
 *
 * A 1.1.0 document uses templates. A 1.0.0 document uses them too when its rules are written
 * against them — slot patterns such as `(node-id (id work))` or the `when` mapping sugar —
 * because Stargraph wrote such documents with `ir_version` 1.0.0, and slot patterns mean
 * nothing against ordered facts (CLIPS refuses them).
 */
export type FactStyle = "ordered" | "template";

/** The current-node template's slot. */
export const NODE_ID_SLOT = "id";
/** The slot a state field's template holds its value in. */
export const VALUE_SLOT = "value";

const CONDITIONAL_ELEMENTS = new Set(["not", "and", "or", "exists", "forall", "logical"]);

const styles = new WeakMap<IRDocument, FactStyle>();

/** The fact style of a document (see {@link FactStyle}); computed once per document. */
export function factStyleOf(doc: IRDocument): FactStyle {
  let style = styles.get(doc);
  if (style === undefined) {
    style = templateStyle(doc) ? "template" : "ordered";
    styles.set(doc, style);
  }
  return style;
}

function templateStyle(doc: IRDocument): boolean {
  if (isAtLeast11(doc.ir_version)) return true;
  return doc.rules.some(
    (rule) => typeof rule.when !== "string" || slotPatterns(rule.when).length > 0,
  );
}

/** A template a document's rules need: its name and slot names (multislot when used so). */
interface TemplateNeed {
  readonly slots: Map<string, boolean>;
}

/**
 * The `deftemplate` constructs a template-style run defines before its rules: `node-id` with an
 * `id` slot, one template per state field with a `value` slot, and every other template a rule
 * matches with slots, with the slots the rules use (so a rule over facts a pack or an `assert`
 * action brings parses). Empty for an ordered-style document.
 *
 * @example
 * templateConstructs(doc, ["verdict"])
 * // "(deftemplate node-id (slot id))\n(deftemplate verdict (slot value))"
 */
export function templateConstructs(doc: IRDocument, fields: readonly string[]): string {
  if (factStyleOf(doc) === "ordered") return "";
  // Validation and compilation ask for the same document's templates: read its rules once.
  const key = fields.join("\u0000");
  let byFields = constructs.get(doc);
  const known = byFields?.get(key);
  if (known !== undefined) return known;
  const source = buildConstructs(doc, fields);
  if (!byFields) {
    byFields = new Map();
    constructs.set(doc, byFields);
  }
  byFields.set(key, source);
  return source;
}

const constructs = new WeakMap<IRDocument, Map<string, string>>();

/**
 * Whether `doc`'s validation parsed its rules against exactly the templates a run with these
 * state fields defines (so an engine holding only those may put off defining the rules).
 */
export function templatesMatchValidation(doc: IRDocument, fields: readonly string[]): boolean {
  return templateConstructs(doc, fields) === templateConstructs(doc, Object.keys(doc.state_schema));
}

function buildConstructs(doc: IRDocument, fields: readonly string[]): string {
  const needs = new Map<string, TemplateNeed>();
  const need = (name: string, slot: string, multi = false) => {
    let entry = needs.get(name);
    if (!entry) {
      entry = { slots: new Map() };
      needs.set(name, entry);
    }
    entry.slots.set(slot, (entry.slots.get(slot) ?? false) || multi);
  };
  need("node-id", NODE_ID_SLOT);
  for (const field of fields) need(templateName(field), VALUE_SLOT);
  for (const rule of doc.rules) {
    if (typeof rule.when !== "string") {
      // The mapping sugar's patterns are its keys (what compileWhen writes), read without
      // writing and parsing the text; a bad mapping is validation's to report.
      if (whenProblem(rule.when) !== undefined) continue;
      for (const key of Object.keys(rule.when)) {
        if (key === WHEN_NODE_KEY) need("node-id", NODE_ID_SLOT);
        else need(templateName(key), VALUE_SLOT);
      }
      continue;
    }
    for (const pattern of slotPatterns(rule.when)) {
      for (const slot of pattern.slots) need(pattern.relation, slot.name, slot.multi);
    }
  }
  return [...needs]
    .map(([name, entry]) => {
      const slots = [...entry.slots].map(
        ([slot, multi]) => `(${multi ? "multislot" : "slot"} ${slot})`,
      );
      return `(deftemplate ${name} ${slots.join(" ")})`;
    })
    .join("\n");
}

interface SlotPattern {
  readonly relation: string;
  readonly slots: readonly { name: string; multi: boolean }[];
}

/** The patterns of CLIPS conditions written with slots (`(rel (slot …) …)`); [] if unreadable. */
function slotPatterns(conditions: string): SlotPattern[] {
  let forms: ReturnType<typeof readForms>;
  try {
    forms = readForms(conditions);
  } catch {
    return [];
  }
  const found: SlotPattern[] = [];
  const visit = (node: (typeof forms)[number]) => {
    if (node.type !== "list") return;
    const [head, ...rest] = node.items;
    if (head?.type !== "atom") return;
    if (CONDITIONAL_ELEMENTS.has(head.text)) {
      rest.forEach(visit);
      return;
    }
    if (head.text === "test" || rest.length === 0) return;
    if (!rest.every((item) => item.type === "list" && item.items[0]?.type === "atom")) return;
    found.push({
      relation: head.text,
      slots: rest.map((item) => {
        const [name, ...values] = (item as Extract<typeof item, { type: "list" }>).items;
        const multi =
          values.length !== 1 || values.some((v) => v.type === "atom" && v.text.startsWith("$"));
        return { name: (name as { text: string }).text, multi };
      }),
    });
  };
  forms.forEach(visit);
  return found;
}

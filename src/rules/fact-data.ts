/** Facts between the host and the engine: host descriptions in, plain data out. */
import type { Template } from "./ast.js";
import type { FactData, FactInput } from "./engine-types.js";
import { rulesRuntimeError } from "./errors.js";
import { compileFactSpec, type EvalHost, type ResolvedFact } from "./evaluate.js";
import { readLiteralFact } from "./fact-text.js";
import type { Fact } from "./facts.js";
import { type ParseContext, parseFactSpec } from "./parse-expr.js";
import { readForms, type SNode } from "./reader.js";
import { type Atom, fromHost, toPlain, type Value } from "./values.js";

/** A fact as data: slots by name, or fields, and the text CLIPS prints. */
export function factData(f: Fact): FactData {
  if (f.template) {
    // fromEntries defines own properties: a slot named `__proto__` stays a slot.
    const slots: Record<string, unknown> = Object.fromEntries(
      f.template.slots.map((s, i) => [s.name, toPlain(f.values[i] as Value)]),
    );
    return { id: f.factId, relation: f.relation, slots, text: f.toString() };
  }
  return { id: f.factId, relation: f.relation, fields: f.values.map(toPlain), text: f.toString() };
}

/** True when a host function returned a CLIPS value already (no conversion needed). */
export function isValue(x: unknown): x is Value {
  return (
    typeof x === "string" ||
    (typeof x === "number" && Number.isInteger(x)) ||
    (typeof x === "object" && x !== null && !Array.isArray(x) && ("value" in x || "factId" in x)) ||
    (Array.isArray(x) && x.every(isValue))
  );
}

/** Resolves a host's fact description (CLIPS text, ordered or template object) to values. */
export function resolveFactInput(
  input: FactInput,
  templates: ReadonlyMap<string, Template>,
  ctx: ParseContext,
  evalHost: EvalHost,
): ResolvedFact {
  if (typeof input === "string") {
    const literal = readLiteralFact(input, (name) => templates.get(name));
    if (literal) return literal;
    const forms = readForms(input);
    const spec = parseFactSpec(forms[0] as SNode, ctx);
    const make = compileFactSpec(spec, { resolve: () => null, rhs: false });
    return make({ tok: null, local: null, rhs: null, host: evalHost });
  }
  if ("template" in input) {
    const t = templates.get(input.template);
    if (!t) throw rulesRuntimeError(`no deftemplate named ${input.template}`);
    const slots = new Map<number, Value>();
    for (const [name, v] of Object.entries(input.slots ?? {})) {
      const i = t.slotIndex.get(name);
      if (i === undefined)
        throw rulesRuntimeError(`slot '${name}' is not in deftemplate '${t.name}'`);
      slots.set(i, fromHost(v));
    }
    return { kind: "template", template: t, slots };
  }
  if (templates.has(input.relation)) {
    throw rulesRuntimeError(`${input.relation} is a deftemplate`, {
      hint: "Pass { template, slots } instead.",
    });
  }
  return {
    kind: "ordered",
    relation: input.relation,
    fields: (input.fields ?? []).map((x) => fromHost(x) as Atom),
  };
}

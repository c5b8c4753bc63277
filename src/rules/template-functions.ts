/**
 * CLIPS 6.30's deftemplate slot functions (tmpltfun.c): `deftemplate-slot-names`,
 * `-default-value`, `-defaultp`, `-singlep`, `-multip`, `-existp`, `-types`, `-range`,
 * `-cardinality`, `-allowed-values`. An implied deftemplate (a relation asserted without one)
 * has the one multislot `implied`. Errors print CLIPS's message where CLIPS prints it (no blank
 * line first) and give FALSE, as CLIPS does.
 *
 * @example
 * // (deftemplate p (slot a) (multislot b)) then (deftemplate-slot-names p) → (a b)
 */
import type { SlotDef, Template } from "./ast.js";
import { type Atom, FALSE, isSymbol, TRUE, type Value } from "./values.js";

/** The functions and their argument counts (name alone, or name and slot). */
export const TEMPLATE_FUNCTIONS: ReadonlyMap<string, number> = new Map([
  ["deftemplate-slot-names", 1],
  ["deftemplate-slot-default-value", 2],
  ["deftemplate-slot-defaultp", 2],
  ["deftemplate-slot-singlep", 2],
  ["deftemplate-slot-multip", 2],
  ["deftemplate-slot-existp", 2],
  ["deftemplate-slot-types", 2],
  ["deftemplate-slot-range", 2],
  ["deftemplate-slot-cardinality", 2],
  ["deftemplate-slot-allowed-values", 2],
]);

/** What the functions read from the engine. */
export interface TemplateFunctionHost {
  /** A deftemplate, "implied" for a relation used without one, or null. */
  template(name: string): Template | "implied" | null;
  /** A slot's default value, as a fact built now would get it. */
  defaultValue(template: Template, slot: SlotDef): Value;
  print(text: string): void;
}

/** CLIPS's order of the type names a slot allows (cstrnutl.c). */
const ALL_TYPES = [
  "FLOAT",
  "INTEGER",
  "SYMBOL",
  "STRING",
  "EXTERNAL-ADDRESS",
  "FACT-ADDRESS",
  "INSTANCE-ADDRESS",
  "INSTANCE-NAME",
];
const EXPANDS: Readonly<Record<string, readonly string[]>> = {
  NUMBER: ["FLOAT", "INTEGER"],
  LEXEME: ["SYMBOL", "STRING"],
  INSTANCE: ["INSTANCE-ADDRESS", "INSTANCE-NAME"],
};

/** Runs one of {@link TEMPLATE_FUNCTIONS}. */
export function templateFunction(
  host: TemplateFunctionHost,
  name: string,
  args: readonly Value[],
): Value {
  const fail = (text: string): Value => {
    host.print(`${text}\n`);
    return FALSE;
  };
  const tName = args[0];
  if (tName === undefined || !isSymbol(tName)) {
    return fail(`[ARGACCES5] Function ${name} expected argument #1 to be of type deftemplate name`);
  }
  const template = host.template(tName);
  if (template === null) return fail(`[PRNTUTIL1] Unable to find deftemplate ${tName}.`);
  if (name === "deftemplate-slot-names") {
    return template === "implied" ? ["implied"] : template.slots.map((s) => s.name);
  }
  const slotName = args[1];
  if (slotName === undefined || !isSymbol(slotName)) {
    return fail(`[ARGACCES5] Function ${name} expected argument #2 to be of type symbol`);
  }
  const slot = template === "implied" ? IMPLIED : template.slots.find((s) => s.name === slotName);
  if (name === "deftemplate-slot-existp") {
    return (template === "implied" ? slotName === "implied" : slot !== undefined) ? TRUE : FALSE;
  }
  if (slot === undefined || (template === "implied" && slotName !== "implied")) {
    return fail(
      `[TMPLTDEF1] Invalid slot ${slotName} not defined in corresponding deftemplate ${tName}.`,
    );
  }
  switch (name) {
    case "deftemplate-slot-default-value":
      if (template === "implied") return [];
      return slot.default.kind === "none" ? "?NONE" : host.defaultValue(template, slot);
    case "deftemplate-slot-defaultp":
      if (slot.default.kind === "none") return FALSE;
      return slot.default.kind === "dynamic" ? "dynamic" : "static";
    case "deftemplate-slot-singlep":
      return slot.multi ? FALSE : TRUE;
    case "deftemplate-slot-multip":
      return slot.multi ? TRUE : FALSE;
    case "deftemplate-slot-types":
      return typesOf(slot);
    case "deftemplate-slot-range": {
      const types = typesOf(slot);
      if (!types.includes("FLOAT") && !types.includes("INTEGER")) return FALSE;
      const [low, high] = slot.range ?? [null, null];
      return [(low ?? "-oo") as Atom, (high ?? "+oo") as Atom];
    }
    case "deftemplate-slot-cardinality": {
      if (!slot.multi) return [];
      const [low, high] = slot.cardinality ?? [null, null];
      return [low ?? 0, high ?? "+oo"];
    }
    default:
      return slot.allowed ? (slot.allowed as Atom[]) : FALSE;
  }
}

const IMPLIED: SlotDef = {
  name: "implied",
  multi: true,
  default: { kind: "derive", exprs: [] },
  types: null,
  allowed: null,
};

/** The type names a slot allows, in CLIPS's order. */
function typesOf(slot: SlotDef): string[] {
  return typeNames(slot.types);
}

/** The primitive type names a `type` facet's words allow (null or ?VARIABLE: all), in CLIPS's order. */
export function typeNames(types: readonly string[] | null): string[] {
  if (types === null || types.includes("VARIABLE") || types.includes("?VARIABLE")) {
    return [...ALL_TYPES];
  }
  const named = new Set(types.flatMap((t) => EXPANDS[t] ?? [t]));
  return ALL_TYPES.filter((t) => named.has(t));
}

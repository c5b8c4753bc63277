/**
 * `(describe-class NAME)`: CLIPS 6.30's report on a class — its role and reactivity, its place
 * in the hierarchy, a table of its slots' facets, one of their constraints, and every
 * message-handler its instances answer.
 */
import type { ClassSlotFacets } from "./ast.js";

/** What describe-class reads of a slot (objects.ts's ClassSlot has it). */
export interface DescribedSlot {
  readonly name: string;
  readonly multi: boolean;
  readonly required: boolean;
  readonly dynamic: unknown;
  readonly facets: ClassSlotFacets;
  readonly accessors: "read" | "write" | "read-write" | "none";
  readonly sources: readonly string[];
}

/** What describe-class reads of a class (objects.ts's ClassDef has it). */
export interface DescribedClass {
  readonly name: string;
  readonly abstract: boolean;
  readonly reactive: boolean;
  readonly supers: readonly DescribedClass[];
  readonly cpl: readonly DescribedClass[];
  readonly subclasses: readonly DescribedClass[];
  readonly slots: readonly DescribedSlot[];
}

/** One message-handler line: `name type in class cls`. */
export interface DescribedHandler {
  readonly name: string;
  readonly type: string;
  readonly cls: string;
}

const RULE_EQ = "=".repeat(80);
const RULE_STAR = "*".repeat(80);
const RULE_DASH = "-".repeat(80);

/** CLIPS cuts a slot name to 16 characters and an override message to 12 in the table. */
const NAME_MAX = 16;
const OVERRIDE_MAX = 12;

/**
 * The text describe-class prints; `recognized` lists the handlers its instances answer, the
 * most general class's first.
 */
export function describeClass(
  cls: DescribedClass,
  recognized: readonly DescribedHandler[],
): string {
  const names = (list: readonly DescribedClass[]) => list.map((c) => ` ${c.name}`).join("");
  let out = `${RULE_EQ}\n${RULE_STAR}\n`;
  if (cls.abstract) out += "Abstract: direct instances of this class cannot be created.\n";
  else {
    out += "Concrete: direct instances of this class can be created.\n";
    out += cls.reactive
      ? "Reactive: direct instances of this class can match defrule patterns.\n"
      : "Non-reactive: direct instances of this class cannot match defrule patterns.\n";
  }
  out += `\nDirect Superclasses:${names(cls.supers)}\n`;
  out += `Inheritance Precedence:${names(cls.cpl)}\n`;
  out += `Direct Subclasses:${names(cls.subclasses)}\n`;
  if (cls.slots.length > 0) out += slotTables(cls.slots);
  if (recognized.length > 0) {
    out += `${RULE_DASH}\nRecognized message-handlers:\n`;
    for (const h of recognized) out += `${h.name} ${h.type} in class ${h.cls}\n`;
  }
  return `${out}${RULE_STAR}\n${RULE_EQ}\n`;
}

function slotTables(slots: readonly DescribedSlot[]): string {
  const width = Math.min(NAME_MAX, Math.max(5, ...slots.map((s) => s.name.length)));
  const label = (text: string) => text.slice(0, width).padEnd(width);
  const overrideOf = (s: DescribedSlot) =>
    s.facets.accessMode === "read-only" ? "NIL" : (s.facets.overrideMessage ?? `put-${s.name}`);
  const ovWidth = Math.min(OVERRIDE_MAX, Math.max(8, ...slots.map((s) => overrideOf(s).length)));
  let out = `${RULE_DASH}\n`;
  out += `${label("SLOTS")} : FLD DEF PRP ACC STO MCH SRC VIS CRT ${"OVRD-MSG".padEnd(ovWidth)} SOURCE(S)\n`;
  // A one-letter code sits in the middle of its three columns.
  const cell = (code: string) => (code.length === 1 ? ` ${code} ` : code.padEnd(3));
  for (const s of slots) {
    const codes = slotFacetCodes(s);
    const cells = [
      ...codes.slice(0, -1).map(cell),
      overrideOf(s).slice(0, ovWidth).padEnd(ovWidth),
      s.sources.join(" "),
    ];
    out += `${label(s.name)} : ${cells.join(" ")}\n`;
  }
  out += "\nConstraint information for slots:\n\n";
  out += `${label("SLOTS")} : SYM STR INN INA EXA FTA INT FLT\n`;
  for (const s of slots) out += `${label(s.name)} :${constraintCells(s)}\n`;
  return out;
}

/**
 * A slot's facets as CLIPS's codes (what `slot-facets` returns and describe-class tabulates):
 * field, default, propagation, access, storage, pattern-match, source, visibility, accessors,
 * override message.
 */
export function slotFacetCodes(s: DescribedSlot): string[] {
  const f = s.facets;
  return [
    s.multi ? "MLT" : "SGL",
    s.required ? "NIL" : s.dynamic ? "DYN" : "STC",
    f.propagation === "inherit" ? "INH" : "NIL",
    f.accessMode === "read-write" ? "RW" : f.accessMode === "read-only" ? "R" : "INT",
    f.storage === "shared" ? "SHR" : "LCL",
    f.reactive ? "RCT" : "NIL",
    f.source === "composite" ? "CMP" : "EXC",
    f.visibility === "public" ? "PUB" : "PRV",
    { "read-write": "RW", read: "R", write: "W", none: "NIL" }[s.accessors],
    f.accessMode === "read-only" ? "NIL" : (f.overrideMessage ?? `put-${s.name}`),
  ];
}

/** The type columns CLIPS shows, each with the `type` words and allowed-… facets that reach it. */
const TYPE_COLUMNS: readonly { types: readonly string[]; allowed: readonly string[] }[] = [
  { types: ["SYMBOL", "LEXEME"], allowed: ["allowed-symbols", "allowed-lexemes"] },
  { types: ["STRING", "LEXEME"], allowed: ["allowed-strings", "allowed-lexemes"] },
  {
    types: ["INSTANCE-NAME", "INSTANCE"],
    allowed: ["allowed-instance-names", "allowed-classes"],
  },
  { types: ["INSTANCE-ADDRESS", "INSTANCE"], allowed: ["allowed-classes"] },
  { types: ["EXTERNAL-ADDRESS"], allowed: [] },
  { types: ["FACT-ADDRESS"], allowed: [] },
  { types: ["INTEGER", "NUMBER"], allowed: ["allowed-integers", "allowed-numbers"] },
  { types: ["FLOAT", "NUMBER"], allowed: ["allowed-floats", "allowed-numbers"] },
];

/** `  + ` for a type allowed, `  # ` for one limited to listed values, blank for one refused. */
function constraintCells(s: DescribedSlot): string {
  const c: ClassSlotFacets["constraints"] = s.facets.constraints;
  const anyType = c.types === null || c.types.includes("VARIABLE");
  const shown = TYPE_COLUMNS.map((col) => {
    if (!anyType && !col.types.some((t) => c.types?.includes(t))) return null;
    const limited =
      c.allowed.includes("allowed-values") || col.allowed.some((a) => c.allowed.includes(a));
    return limited ? "#" : "+";
  });
  let out = shown.map((m) => `  ${m ?? " "} `).join("");
  // The range applies while a number type is allowed; the cardinality to a multislot.
  if (shown[6] !== null || shown[7] !== null) out += ` RNG:[${bounds(c.range)}]`;
  return s.multi ? `${out} CRD:[${bounds(c.cardinality, "0")}]` : `${out} `;
}

function bounds(range: readonly [string, string] | null, low = "-oo"): string {
  const end = (v: string | undefined, open: string) =>
    v === undefined || v === "" || v === "VARIABLE" || v === "?VARIABLE" ? open : v;
  return `${end(range?.[0], low)}..${end(range?.[1], "+oo")}`;
}

/**
 * `(browse-classes [CLASS])`: the class and, below it, each subclass two spaces further in, a
 * class with more than one direct superclass marked ` *` (and shown under each of them).
 */
export function browseClasses(cls: DescribedClass, depth = 0): string {
  const mark = cls.supers.length > 1 ? " *" : "";
  let out = `${"  ".repeat(depth)}${cls.name}${mark}\n`;
  for (const s of cls.subclasses) out += browseClasses(s, depth + 1);
  return out;
}

/**
 * A deftemplate slot's constraint attributes (`type`, `range`, `cardinality`, `allowed-…`) read
 * as CLIPS 6.30 reads them, token by token (cstrnpsr.c), so each error is the one CLIPS reports
 * first, worded and echoed as CLIPS does: an attribute given twice ([PRNTUTIL5]), attributes
 * that cannot go together ([CSTRNPSR3], at the second one's name), a value of the wrong kind
 * ([CSTRNPSR4], [PRNTUTIL2]), a range whose minimum is above its maximum ([CSTRNPSR2]), and once
 * the slot is read, a type that excludes what the other attributes allow ([CSTRNPSR1]).
 *
 * @example
 * // (deftemplate t (slot x (type SYMBOL) (range 1 3))) fails with
 * // "[CSTRNPSR1] The type attribute conflicts with the range attribute."
 */

import type { SlotConstraintFacets } from "./ast.js";
import { rulesParseError } from "./errors.js";
import type { SAtom, SList, SNode } from "./reader.js";
import { describe } from "./reader.js";
import { float, isFloat, isInteger, numberOf, type Value } from "./values.js";

/** The basic types CLIPS keeps a flag for (a type name allows one or several). */
type Basic =
  | "SYMBOL"
  | "STRING"
  | "INTEGER"
  | "FLOAT"
  | "INSTANCE-NAME"
  | "INSTANCE-ADDRESS"
  | "EXTERNAL-ADDRESS"
  | "FACT-ADDRESS";

const TYPE_NAMES: ReadonlyMap<string, readonly Basic[]> = new Map<string, readonly Basic[]>([
  ["SYMBOL", ["SYMBOL"]],
  ["STRING", ["STRING"]],
  ["LEXEME", ["SYMBOL", "STRING"]],
  ["INTEGER", ["INTEGER"]],
  ["FLOAT", ["FLOAT"]],
  ["NUMBER", ["INTEGER", "FLOAT"]],
  ["INSTANCE-NAME", ["INSTANCE-NAME"]],
  ["INSTANCE-ADDRESS", ["INSTANCE-ADDRESS"]],
  ["INSTANCE", ["INSTANCE-NAME", "INSTANCE-ADDRESS"]],
  ["EXTERNAL-ADDRESS", ["EXTERNAL-ADDRESS"]],
  ["FACT-ADDRESS", ["FACT-ADDRESS"]],
]);

/** Each allowed-… attribute: the types it restricts and the type name Keel records for them. */
const ALLOWED: ReadonlyMap<string, { basics: readonly Basic[] | null; recorded: string | null }> =
  new Map([
    ["allowed-symbols", { basics: ["SYMBOL"], recorded: "SYMBOL" }],
    ["allowed-strings", { basics: ["STRING"], recorded: "STRING" }],
    ["allowed-lexemes", { basics: ["SYMBOL", "STRING"], recorded: "LEXEME" }],
    ["allowed-integers", { basics: ["INTEGER"], recorded: "INTEGER" }],
    ["allowed-floats", { basics: ["FLOAT"], recorded: "FLOAT" }],
    ["allowed-numbers", { basics: ["INTEGER", "FLOAT"], recorded: "NUMBER" }],
    ["allowed-instance-names", { basics: ["INSTANCE-NAME"], recorded: "INSTANCE-NAME" }],
    ["allowed-values", { basics: null, recorded: null }],
    // Class names (symbols), kept apart: they restrict instance names and addresses only.
    ["allowed-classes", { basics: ["SYMBOL"], recorded: null }],
  ]);

/** The attributes this module reads (CLIPS's "standard constraints"). */
export function isConstraintAttribute(name: string): boolean {
  return name === "type" || name === "range" || name === "cardinality" || ALLOWED.has(name);
}

/** What a slot's constraint attributes said, as the slot records it. */
export interface SlotConstraints {
  /** The type names written (null: any type). */
  types: string[] | null;
  allowed: Value[] | null;
  /** The types `allowed` restricts (null: every type). */
  allowedTypes: string[] | null;
  range: [Value | null, Value | null];
  cardinality: [number | null, number | null] | null;
  /** The classes `allowed-classes` lists (empty: no such attribute). */
  allowedClasses: string[];
}

/**
 * CheckConstraintParseConflicts: the attribute a type attribute allowing only `allows` excludes
 * (an allowed-… naming a type it lacks, or a range bound of such a type), or null.
 */
function typeConflict(
  allows: ReadonlySet<Basic> | null,
  r: ReadonlySet<Basic | "ANY" | "CLASS">,
  result: Pick<SlotConstraints, "allowed" | "range">,
): string | null {
  if (allows === null) return null;
  if (r.has("SYMBOL") && !allows.has("SYMBOL")) return "allowed-symbols";
  if (r.has("STRING") && !allows.has("STRING")) return "allowed-strings";
  if (r.has("INTEGER") && !allows.has("INTEGER")) return "allowed-integers/numbers";
  if (r.has("FLOAT") && !allows.has("FLOAT")) return "allowed-floats/numbers";
  if (r.has("CLASS") && !allows.has("INSTANCE-ADDRESS") && !allows.has("INSTANCE-NAME")) {
    return "allowed-classes";
  }
  if (r.has("INSTANCE-NAME") && !allows.has("INSTANCE-NAME")) return "allowed-instance-names";
  if (r.has("ANY")) {
    for (const v of result.allowed ?? []) if (!allows.has(basicOf(v))) return "allowed-values";
  }
  // CLIPS looks at the maximum before the minimum.
  for (const bound of [result.range[1], result.range[0]]) {
    if (bound === null) continue;
    if ((isInteger(bound) && !allows.has("INTEGER")) || (isFloat(bound) && !allows.has("FLOAT"))) {
      return "range";
    }
  }
  return null;
}

/**
 * The [CSTRNPSR1] conflict of facets put together from several definitions (a composite class
 * slot's, whose type may come from one class and its allowed-… from another), or null.
 */
export function facetsConflict(c: SlotConstraintFacets): string | null {
  const types = c.types?.filter((t) => TYPE_NAMES.has(t));
  const allows = types?.length ? new Set(types.flatMap((t) => TYPE_NAMES.get(t) ?? [])) : null;
  const restricted = new Set<Basic | "ANY" | "CLASS">();
  for (const a of c.allowed) {
    if (a === "allowed-classes") restricted.add("CLASS");
    else for (const b of ALLOWED.get(a)?.basics ?? ["ANY" as const]) restricted.add(b);
  }
  const range: [Value | null, Value | null] = [
    constraintBound(c.range?.[0]),
    constraintBound(c.range?.[1]),
  ];
  return typeConflict(allows, restricted, { allowed: [...c.allowedValues], range });
}

/** A range or cardinality end as written, as a number; null for an open (?VARIABLE) end. */
export function constraintBound(text: string | undefined): Value | null {
  if (text === undefined || text === "" || text.includes("VARIABLE")) return null;
  const n = Number(text);
  if (Number.isNaN(n)) return null;
  return /[.eE]/.test(text) ? float(n) : n;
}

/** Reads one slot's constraint attributes in the order written; see {@link readAttribute}. */
export class SlotConstraintReader {
  readonly result: SlotConstraints = {
    types: null,
    allowed: null,
    allowedTypes: null,
    range: [null, null],
    cardinality: null,
    allowedClasses: [],
  };
  private readonly parsed = new Set<string>();
  /** The basic types the type attribute allows (null: no type attribute). */
  private typeBasics: Set<Basic> | null = null;
  /** The basic types an allowed-… attribute restricts (cleared by ?VARIABLE). */
  private readonly restricted = new Set<Basic | "ANY" | "CLASS">();

  constructor(
    private readonly multi: boolean,
    private readonly construct: string,
  ) {}

  /** Reads `attr` (its name is a constraint attribute); throws CLIPS's error for it. */
  readAttribute(attr: SList): void {
    const head = attr.items[0] as SAtom;
    const name = head.text;
    if (this.parsed.has(name)) {
      this.fail(head, `[PRNTUTIL5] The ${name} attribute has already been parsed.`);
    }
    if (name === "type") this.type(attr);
    else if (name === "range" || name === "cardinality") this.bounds(attr, name === "range");
    else this.allowedValues(attr, name);
    this.parsed.add(name);
  }

  /**
   * CheckConstraintParseConflicts, once the slot is read: [CSTRNPSR1] when the type attribute
   * excludes what an allowed-… or the range attribute allows. `slot` is the slot's list.
   */
  checkConflicts(slot: SList): void {
    const other = typeConflict(this.typeBasics, this.restricted, this.result);
    if (other !== null) {
      this.fail(slot, `[CSTRNPSR1] The type attribute conflicts with the ${other} attribute.`);
    }
  }

  private type(attr: SList): void {
    const values = attr.items.slice(1);
    let typed = false;
    let variable = false;
    const basics = new Set<Basic>();
    const names: string[] = [];
    for (const v of values) {
      const bad = (): never =>
        this.fail(
          v,
          "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for type attribute.",
          " ",
        );
      if (v.type === "atom" && v.kind === "symbol") {
        const expands = TYPE_NAMES.get(v.text);
        if (variable || expands === undefined) bad();
        // Naming a type twice (NUMBER after INTEGER too) is an error.
        if ((expands as readonly Basic[]).some((b) => basics.has(b))) bad();
        for (const b of expands as readonly Basic[]) basics.add(b);
        names.push(v.text);
        typed = true;
      } else if (v.type === "atom" && v.kind === "sfvar" && v.text === "VARIABLE") {
        if (typed || variable) bad();
        variable = true;
      } else {
        bad();
      }
    }
    if (!typed && !variable) {
      this.fail(attr, "[PRNTUTIL2] Syntax Error:  Check appropriate syntax for type attribute.");
    }
    this.typeBasics = typed ? basics : null;
    this.result.types = typed ? names : null;
  }

  private bounds(attr: SList, range: boolean): void {
    const name = range ? "range" : "cardinality";
    const head = attr.items[0] as SAtom;
    if (!range && !this.multi) {
      this.fail(
        head,
        "[CSTRNPSR5] The cardinality attribute can only be used with multifield slots.",
      );
    }
    if (range) {
      const other = [
        "allowed-values",
        "allowed-integers",
        "allowed-floats",
        "allowed-numbers",
      ].find((a) => this.parsed.has(a));
      if (other !== undefined) this.noConjunctiveUse(head, "range", other);
    }
    const syntax = `[PRNTUTIL2] Syntax Error:  Check appropriate syntax for ${name} attribute.`;
    const bound: (Value | null)[] = [];
    let last: SNode = head;
    for (const k of [1, 2]) {
      const v = attr.items[k];
      // A missing value: CLIPS read the `)` after the space it wrote.
      if (v === undefined) this.fail(last, syntax, " )");
      const ok =
        v.type === "atom" &&
        (v.kind === "integer" ||
          (v.kind === "float" && range) ||
          (v.kind === "sfvar" && v.text === "VARIABLE"));
      if (!ok) this.fail(v, syntax);
      bound.push((v as SAtom).kind === "sfvar" ? null : (v as SAtom).value);
      last = v;
    }
    const extra = attr.items[3];
    if (extra !== undefined) this.fail(extra, syntax);
    const [low, high] = bound as [Value | null, Value | null];
    if (low !== null && high !== null && numberOf(low) > numberOf(high)) {
      this.fail(
        attr,
        `[CSTRNPSR2] Minimum ${name} value must be less than\nor equal to the maximum ${name} value`,
      );
    }
    if (range) this.result.range = [low, high];
    else this.result.cardinality = [low as number | null, high as number | null];
  }

  private allowedValues(attr: SList, name: string): void {
    const head = attr.items[0] as SAtom;
    const other = this.conflictOf(name);
    if (other !== undefined) this.noConjunctiveUse(head, name, other);
    const spec = ALLOWED.get(name) as { basics: readonly Basic[] | null; recorded: string | null };
    const syntax = `[PRNTUTIL2] Syntax Error:  Check appropriate syntax for ${name} attribute.`;
    const values: Value[] = [];
    let constant = false;
    let variable = false;
    const values0 = attr.items.slice(1);
    for (const v of values0) {
      if (v.type === "list") {
        throw rulesParseError(v.pos, "a constant", describe(v), {
          construct: this.construct,
          clips: syntax,
          echoOpen: true,
          echoAfter: " ",
        });
      }
      if (v.kind === "sfvar") {
        if (v.text !== "VARIABLE") this.fail(v, syntax, " ");
        variable = true;
      } else if (
        v.kind === "symbol" ||
        v.kind === "string" ||
        v.kind === "integer" ||
        v.kind === "float" ||
        v.kind === "instance"
      ) {
        const b = basicOf(v.value);
        if (spec.basics !== null && !spec.basics.includes(b)) {
          this.fail(
            v,
            `[CSTRNPSR4] Value does not match the expected type for the ${name} attribute`,
            " ",
          );
        }
        constant = true;
        values.push(v.value);
      } else {
        this.fail(v, syntax, " ");
      }
      if (constant && variable) this.fail(v, syntax, " ");
    }
    if (!constant && !variable) this.fail(head, syntax, " )");
    if (variable) return;
    if (name === "allowed-classes") {
      this.restricted.add("CLASS");
      this.result.allowedClasses.push(...values.map((v) => String(v)));
      return;
    }
    for (const b of spec.basics ?? ["ANY" as const]) this.restricted.add(b);
    const r = this.result;
    r.allowed = [...(r.allowed ?? []), ...values];
    r.allowedTypes = spec.recorded === null ? null : [...(r.allowedTypes ?? []), spec.recorded];
  }

  /** The attribute already read that `name` cannot go with, in CLIPS's order of checks. */
  private conflictOf(name: string): string | undefined {
    const parsed = (...names: string[]) => names.find((n) => this.parsed.has(n));
    const numeric = ["allowed-values", "allowed-numbers", "allowed-integers", "allowed-floats"];
    if (name === "allowed-values") {
      const other = parsed(
        ...[...ALLOWED.keys()].filter((n) => n !== name && n !== "allowed-classes"),
      );
      if (other !== undefined) return other;
    }
    if (numeric.includes(name) && this.parsed.has("range")) return "range";
    if (name !== "allowed-values" && this.parsed.has("allowed-values")) return "allowed-values";
    if (name === "allowed-numbers") return parsed("allowed-floats", "allowed-integers");
    if ((name === "allowed-integers" || name === "allowed-floats") && parsed("allowed-numbers")) {
      return "allowed-number";
    }
    if (name === "allowed-lexemes") return parsed("allowed-symbols", "allowed-strings");
    if ((name === "allowed-symbols" || name === "allowed-strings") && parsed("allowed-lexemes")) {
      return "allowed-lexemes";
    }
    return undefined;
  }

  private noConjunctiveUse(at: SAtom, name: string, other: string): never {
    return this.fail(
      at,
      `[CSTRNPSR3] The ${name} attribute cannot be used\nin conjunction with the ${other} attribute.`,
    );
  }

  /** CLIPS's error `clips`, echoed through `at` (and `after`, what CLIPS wrote next). */
  private fail(at: SNode, clips: string, after?: string): never {
    throw rulesParseError(at.pos, "a slot attribute CLIPS accepts", describe(at), {
      construct: this.construct,
      clips,
      echoThrough: true,
      ...(after !== undefined ? { echoAfter: after } : {}),
    });
  }
}

function basicOf(v: Value): Basic {
  if (typeof v === "string") return "SYMBOL";
  if (isInteger(v)) return "INTEGER";
  if (isFloat(v)) return "FLOAT";
  if (typeof v === "object" && v !== null && "name" in v) return "INSTANCE-NAME";
  return "STRING";
}

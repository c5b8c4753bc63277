import type { SlotDef, Template } from "./ast.js";
import { rulesRuntimeError } from "./errors.js";
import {
  type Compiled,
  compileExpr,
  type EvalHost,
  type SlotChange,
  slotValue,
} from "./evaluate.js";
import { contentHash, Fact, valueHashes } from "./facts.js";
import { HashChains } from "./rete/chains.js";
import {
  type ClassRestricted,
  singleFieldSlotMessage,
  valueViolation,
} from "./template-defaults.js";
import {
  type Atom,
  DUMMY_FACT,
  DUMMY_INSTANCE,
  float,
  formatValue,
  instanceName,
  isFloat,
  isInstanceName,
  isInteger,
  isMultifield,
  isNumber,
  isString,
  isSymbol,
  NIL,
  NULL_POINTER,
  numberOf,
  str,
  type Value,
} from "./values.js";

/**
 * The facts: by index, by content (duplicate suppression as in CLIPS), and by relation (to fill
 * alpha memories of rules added later).
 */
export class WorkingMemory {
  readonly byId = new Map<number, Fact>();
  /** Facts by content hash, as CLIPS's fact hash table (facthsh.c): no key strings. */
  private byContent = new HashChains<Fact>();
  private readonly byRelation = new Map<string, Set<Fact>>();
  nextId = 0;
  /** `(set-fact-duplication TRUE)`: an identical fact is asserted again with its own index. */
  duplication = false;
  /** The existing fact the last create() found identical (null when it created one). */
  duplicateOf: Fact | null = null;

  /** A new fact, or null when an identical fact exists. */
  create(relation: string, template: Template | null, values: Value[], id?: number): Fact | null {
    const hashes = valueHashes(values);
    const hash = contentHash(relation, hashes);
    for (let f = this.duplication ? null : this.byContent.first(hash); f !== null; f = f.next) {
      if (f.hash === hash && f.holds(relation, values)) {
        this.duplicateOf = f;
        return null;
      }
    }
    this.duplicateOf = null;
    const fact = new Fact(id ?? this.nextId, relation, template, values, hashes, hash);
    this.byContent.append(fact);
    this.nextId = Math.max(this.nextId, fact.factId + 1);
    this.byId.set(fact.factId, fact);
    let rel = this.byRelation.get(relation);
    if (!rel) {
      rel = new Set();
      this.byRelation.set(relation, rel);
    }
    rel.add(fact);
    return fact;
  }

  remove(fact: Fact): void {
    fact.retracted = true;
    this.byId.delete(fact.factId);
    this.byContent.remove(fact);
    this.byRelation.get(fact.relation)?.delete(fact);
  }

  ofRelation(relation: string): Fact[] {
    return [...(this.byRelation.get(relation) ?? [])].sort((a, b) => a.factId - b.factId);
  }

  /** All facts in index order. */
  all(): Fact[] {
    return [...this.byId.values()].sort((a, b) => a.factId - b.factId);
  }

  clear(): void {
    this.byId.clear();
    this.byContent.clear();
    this.byRelation.clear();
  }
}

const compiledDefaults = new WeakMap<SlotDef, Compiled[]>();

/** The order in which CLIPS derives a default from the types a slot allows (default.c). */
const DERIVE_ORDER = [
  { type: "SYMBOL", within: ["SYMBOL", "LEXEME"], is: isSymbol, standard: NIL as Value },
  { type: "STRING", within: ["STRING", "LEXEME"], is: isString, standard: str("") as Value },
  { type: "INTEGER", within: ["INTEGER", "NUMBER"], is: isInteger, standard: 0 as Value },
  { type: "FLOAT", within: ["FLOAT", "NUMBER"], is: isFloat, standard: float(0) as Value },
  {
    type: "INSTANCE-NAME",
    within: ["INSTANCE-NAME", "INSTANCE"],
    is: isInstanceName,
    standard: instanceName("nil") as Value,
  },
  {
    type: "INSTANCE-ADDRESS",
    within: ["INSTANCE-ADDRESS", "INSTANCE"],
    is: () => false,
    standard: DUMMY_INSTANCE as Value,
  },
  { type: "FACT-ADDRESS", within: ["FACT-ADDRESS"], is: () => false, standard: DUMMY_FACT },
  { type: "EXTERNAL", within: ["EXTERNAL-ADDRESS"], is: () => false, standard: NULL_POINTER },
] as const;

/**
 * CLIPS's derived default: the first type the slot allows in the order SYMBOL, STRING, INTEGER,
 * FLOAT; the first allowed value of that type, else (for numbers) the range's minimum or maximum,
 * else nil, "", 0 or 0.0.
 */
export function derivedDefault(slot: DerivableSlot): Value {
  // A multislot's derived default holds its minimum cardinality of derived single values.
  if (slot.multi) return Array(slot.cardinality?.[0] ?? 0).fill(derivedSingle(slot));
  return derivedSingle(slot);
}

/** What a derived default is made from (a deftemplate's or a defclass's slot). */
export type DerivableSlot = Pick<SlotDef, "multi" | "types" | "allowed" | "range" | "cardinality">;

function derivedSingle(slot: DerivableSlot): Atom {
  const kind =
    DERIVE_ORDER.find(
      (k) => slot.types === null || k.within.some((t) => slot.types?.includes(t)),
    ) ?? DERIVE_ORDER[0];
  const listed = slot.allowed?.find((v) => kind.is(v));
  if (listed !== undefined) return listed as Atom;
  if (kind.type === "INTEGER" || kind.type === "FLOAT") {
    for (const bound of slot.range ?? []) {
      if (bound === null || bound === undefined || !isNumber(bound)) continue;
      return kind.type === "INTEGER" ? Math.trunc(numberOf(bound)) : float(numberOf(bound));
    }
  }
  return kind.standard as Atom;
}

/** A slot's default value for a new template fact. */
export function defaultFor(template: Template, slot: SlotDef, host: EvalHost): Value {
  switch (slot.default.kind) {
    case "derive":
      return derivedDefault(slot);
    case "none":
      throw rulesRuntimeError(
        `slot ${slot.name} of deftemplate ${template.name} has no default and must be given a value`,
        {
          clips: `[TMPLTRHS1] Slot ${slot.name} requires a value because of its (default ?NONE) attribute.`,
        },
      );
    default: {
      let parts = compiledDefaults.get(slot);
      if (!parts) {
        parts = slot.default.exprs.map((e) => compileExpr(e, { resolve: () => null, rhs: false }));
        compiledDefaults.set(slot, parts);
      }
      const vals = parts.map((p) => p({ tok: null, local: null, rhs: null, host }));
      return slot.multi
        ? vals.flatMap((v) => (isMultifield(v) ? v : [v as Atom]))
        : slotValue(vals);
    }
  }
}

/**
 * A slot value's shape: a single slot holds one value ([TMPLTDEF2] otherwise), a multislot a
 * multifield. Its constraints are checked only when dynamic constraint checking is on
 * ({@link slotViolation}); constants are checked when the assert is read.
 */
export function checkSlotValue(template: Template, slot: SlotDef, v: Value): Value {
  if (!slot.multi && isMultifield(v)) {
    throw rulesRuntimeError(
      `slot ${slot.name} of deftemplate ${template.name} takes one value, not a multifield`,
      {
        clips: singleFieldSlotMessage(slot.name),
        hint: "Declare it as a multislot to store several values.",
      },
    );
  }
  return slot.multi && !isMultifield(v) ? [v as Atom] : v;
}

/**
 * What CLIPS says a slot value breaks (its cardinality, type, allowed values or classes or range, in that
 * order), e.g. "does not match the allowed types"; null when it keeps them all.
 */
export function slotViolation(
  slot: Pick<SlotDef, "multi" | "cardinality" | "types" | "allowed" | "allowedTypes" | "range"> &
    ClassRestricted,
  v: Value,
): string | null {
  const fields = isMultifield(v) ? v : [v];
  if (slot.multi && slot.cardinality) {
    const [low, high] = slot.cardinality;
    if ((low !== null && fields.length < low) || (high !== null && fields.length > high)) {
      return "does not satisfy the cardinality restrictions";
    }
  }
  for (const f of fields) {
    const broken = valueViolation(slot, f);
    if (broken !== null) return broken;
  }
  return null;
}

/**
 * CLIPS's dynamic constraint check of a fact just asserted: the fact stays, the error halts
 * what asserted it ([CSTRNCHK1] naming the value and the fact).
 */
export function checkFactConstraints(fact: Fact): void {
  const template = fact.template;
  if (!template) return;
  for (const [i, slot] of template.slots.entries()) {
    const v = fact.values[i] as Value;
    const broken = slotViolation(slot, v);
    if (broken === null) continue;
    const id = `f-${fact.factId}`.padEnd(8);
    throw rulesRuntimeError(`slot ${slot.name} of fact f-${fact.factId} ${broken}`, {
      clips: `[CSTRNCHK1] Slot value ${formatValue(v)} found in fact ${id}\n${broken} for slot ${slot.name}.`,
    });
  }
}

/** The slot values of a template fact built from given slots plus defaults. */
export function templateValues(
  template: Template,
  given: Map<number, Value>,
  host: EvalHost,
): Value[] {
  // Built by push, not map: every fact's values array is then packed, as the joins' reads expect
  // (an optimized map makes holey arrays, and a second array shape makes those reads deoptimize).
  const values: Value[] = [];
  const slots = template.slots;
  for (let i = 0; i < slots.length; i++) {
    values.push(slotValueOf(template, slots[i] as SlotDef, given.get(i), host));
  }
  return values;
}

/** The value of one slot of a template fact: the given one, checked, or the slot's default. */
function slotValueOf(
  template: Template,
  slot: SlotDef,
  value: Value | undefined,
  host: EvalHost,
): Value {
  if (value !== undefined) {
    // A multifield reaching a single slot when the fact is asserted (a variable's or a
    // global's value: a call's was refused when read) is CLIPS's [TMPLTFUN2]; none at all
    // (`(slot)` written empty) stays [TMPLTDEF2].
    if (!slot.multi && isMultifield(value) && value.length > 0) {
      throw rulesRuntimeError(`slot ${slot.name} of deftemplate ${template.name} takes one value`, {
        clips: `[TMPLTFUN2] Attempted to assert a multifield value \ninto the single field slot ${slot.name} of deftemplate ${template.name}.`,
        hint: "Declare it as a multislot to store several values.",
      });
    }
    return checkSlotValue(template, slot, value);
  }
  // CLIPS does not check a derived default against the slot's allowed values.
  if (slot.default.kind === "derive") return derivedDefault(slot);
  return checkSlotValue(template, slot, defaultFor(template, slot, host));
}

/** Applies modify/duplicate changes to a template fact's values. */
export function changedValues(fact: Fact, changes: SlotChange[]): Value[] {
  const template = fact.template;
  if (!template) {
    throw rulesRuntimeError(
      `fact f-${fact.factId} is an ordered fact; modify and duplicate need a template fact`,
      {
        hint: "Retract and assert ordered facts instead.",
      },
    );
  }
  const values = fact.values.slice();
  for (const c of changes) {
    const index = template.slotIndex.get(c.name);
    if (index === undefined) {
      throw rulesRuntimeError(`slot '${c.name}' is not in deftemplate '${template.name}'`, {
        clips: `[TMPLTDEF1] Invalid slot ${c.name} not defined in corresponding deftemplate ${template.name}.`,
      });
    }
    const slot = template.slots[index] as SlotDef;
    const v = slot.multi
      ? c.values.flatMap((x) => (isMultifield(x) ? x : [x as Atom]))
      : slotValue(c.values);
    if (!slot.multi && isMultifield(v)) {
      // modify and duplicate word it as an assert of a multifield ([TMPLTFUN2]).
      throw rulesRuntimeError(`slot ${c.name} of deftemplate ${template.name} takes one value`, {
        clips: `[TMPLTFUN2] Attempted to assert a multifield value \ninto the single field slot ${c.name} of deftemplate ${template.name}.`,
        hint: "Declare it as a multislot to store several values.",
      });
    }
    values[index] = checkSlotValue(template, slot, v);
  }
  return values;
}

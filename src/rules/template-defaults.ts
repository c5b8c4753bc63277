/**
 * CLIPS's parse-time checks of a deftemplate slot's default (tmpltpsr.c, default.c): a single
 * field slot's default holds one single-field value ([DEFAULT1]), and a constant default must
 * satisfy the slot's type and allowed values ([CSTRNCHK1]). Each error is echoed as CLIPS
 * echoes it: [DEFAULT1] through the attribute's `)`, [CSTRNCHK1] through the slot's.
 */
import type { Expr, SlotDef } from "./ast.js";
import { rulesParseError } from "./errors.js";
import type { SList, SNode } from "./reader.js";
import { typeOk } from "./slot-types.js";
import {
  formatValue,
  isInstanceName,
  isInstanceRef,
  isMultifield,
  isNumber,
  numberOf,
  type Value,
  valuesEqual,
} from "./values.js";

/**
 * A COOL slot's `allowed-classes` facet, as a check: whether an instance name or address
 * designates an instance of a listed class or a subclass (a name of no instance fits none, as
 * CLIPS's CheckAllowedClassesConstraint). Absent: no such facet.
 */
export interface ClassRestricted {
  readonly classAllowed?: ((v: Value) => boolean) | null;
}

/** The constraint facets a value is checked against. */
export type ValueConstraints = Pick<SlotDef, "types" | "allowed" | "allowedTypes" | "range"> &
  ClassRestricted;

/** Functions whose value is a multifield: never a single field slot's default. */
const MULTIFIELD_RESULT = new Set([
  "create$",
  "rest$",
  "first$",
  "subseq$",
  "delete$",
  "insert$",
  "replace$",
  "explode$",
  "mv-append",
  "mv-subseq",
  "mv-delete",
  "mv-replace",
  "str-explode",
]);

/** Whether the function `name` returns a multifield (CLIPS's return code 'm'). */
export function returnsMultifield(name: string): boolean {
  return MULTIFIELD_RESULT.has(name);
}

/** [DEFAULT1] unless `args` is one value that can be a single field. */
export function checkSingleDefault(attr: SList, args: readonly SNode[], construct: string): void {
  const only = args.length === 1 ? args[0] : undefined;
  const call = only?.type === "list" ? only.items[0] : undefined;
  const multifield = call?.type === "atom" && MULTIFIELD_RESULT.has(call.text);
  if (only !== undefined && !multifield) return;
  throw rulesParseError(attr.pos, "one single-field value", `${args.length} values`, {
    construct,
    clips: "[DEFAULT1] The default value for a single field slot must be a single field value",
    echoThrough: true,
  });
}

/** The basic types of the values some functions return (CLIPS's return-type codes). */
const RETURNS: ReadonlyMap<string, readonly string[]> = new Map<string, readonly string[]>([
  ...["+", "-", "*", "/", "abs", "min", "max"].map(
    (f) => [f, ["INTEGER", "FLOAT"]] as [string, string[]],
  ),
  ...["sym-cat", "str-cat"].map((f) => [f, ["SYMBOL", "STRING"]] as [string, string[]]),
  // CLIPS's code 'g' (integer, div, round, str-length, …) reads as INTEGER, FLOAT or SYMBOL.
  ...["integer", "div", "round", "str-length", "str-compare"].map(
    (f) => [f, ["INTEGER", "FLOAT", "SYMBOL"]] as [string, string[]],
  ),
  ...["float", "sqrt", "exp", "log", "log10", "pi", "**", "sin", "cos", "tan"].map(
    (f) => [f, ["FLOAT"]] as [string, string[]],
  ),
  ...["implode$", "sub-string"].map((f) => [f, ["STRING"]] as [string, string[]]),
  ...[
    "eq",
    "neq",
    "=",
    "<>",
    "<",
    ">",
    "<=",
    ">=",
    "and",
    "or",
    "not",
    "numberp",
    "integerp",
    "floatp",
    "symbolp",
    "stringp",
    "lexemep",
    "multifieldp",
    "evenp",
    "oddp",
    "gensym",
    "gensym*",
  ].map((f) => [f, ["SYMBOL"]] as [string, string[]]),
  ...[...MULTIFIELD_RESULT].map((f) => [f, ["MULTIFIELD"]] as [string, string[]]),
]);

/** The basic types each type name allows. */
const BASICS: Readonly<Record<string, readonly string[]>> = {
  LEXEME: ["SYMBOL", "STRING"],
  NUMBER: ["INTEGER", "FLOAT"],
  INSTANCE: ["INSTANCE-NAME", "INSTANCE-ADDRESS"],
};

/** What a slot's expressions break, as CLIPS's static constraint check finds it. */
export interface StaticViolation {
  /** e.g. "does not match the allowed types". */
  readonly text: string;
  /** Broken by a call's return type (CLIPS: "The function return value"). */
  readonly call: boolean;
  /** Broken by how many values there are (CLIPS: "Literal slot values"). */
  readonly cardinality: boolean;
}

/**
 * CLIPS's static constraint check of a slot's expressions (ConstraintCheckExpressionChain): how
 * many values they give (a call counts as one unless it returns a multifield; a variable makes
 * the count open) against the cardinality, then each constant's type, allowed values and range,
 * and each call's return type. Null when nothing is broken.
 */
export function staticViolation(
  slot: Pick<SlotDef, "multi" | "types" | "allowed" | "allowedTypes" | "range" | "cardinality"> &
    ClassRestricted,
  exprs: readonly Expr[],
  singleCounted = false,
): StaticViolation | null {
  // A COOL direct slot write counts a single-field slot's values too (cardinality 1 to 1).
  const cardinality = slot.multi ? slot.cardinality : singleCounted ? ([1, 1] as const) : null;
  if (cardinality) {
    let min = 0;
    let open = false;
    for (const e of exprs) {
      if (e.k === "const") min += isMultifield(e.v) ? e.v.length : 1;
      else if (e.k === "call" && !MULTIFIELD_RESULT.has(e.fn)) min++;
      else open = true;
    }
    const [low, high] = cardinality;
    const max = open ? Number.POSITIVE_INFINITY : min;
    if ((high !== null && min > high) || (low !== null && max < low)) {
      return {
        text: "does not satisfy the cardinality restrictions",
        call: false,
        cardinality: true,
      };
    }
  }
  const allows = slot.types?.flatMap((t) => BASICS[t] ?? [t]);
  for (const e of exprs) {
    if (e.k === "call") {
      const returns = RETURNS.get(e.fn);
      const fits = (t: string) => (t === "MULTIFIELD" ? slot.multi : allows?.includes(t));
      if (allows && returns && !returns.some(fits)) {
        return { text: "does not match the allowed types", call: true, cardinality: false };
      }
      continue;
    }
    if (e.k !== "const") continue;
    for (const v of isMultifield(e.v) ? e.v : [e.v]) {
      const text = valueViolation(slot, v);
      if (text !== null) return { text, call: false, cardinality: false };
    }
  }
  return null;
}

/**
 * What one value breaks of a slot's type, allowed values, allowed classes and range (in that
 * order, CLIPS's ConstraintCheckValue), or null.
 */
export function valueViolation(slot: ValueConstraints, v: Value): string | null {
  if (slot.types && !typeOk(v, slot.types)) return "does not match the allowed types";
  if (
    slot.allowed &&
    (!slot.allowedTypes || typeOk(v, slot.allowedTypes)) &&
    !slot.allowed.some((a) => valuesEqual(a, v))
  ) {
    return "does not match the allowed values";
  }
  if (slot.classAllowed && (isInstanceName(v) || isInstanceRef(v)) && !slot.classAllowed(v)) {
    return "does not match the allowed classes";
  }
  const [low, high] = slot.range ?? [null, null];
  if (
    isNumber(v) &&
    ((low !== null && numberOf(v) < numberOf(low)) ||
      (high !== null && numberOf(v) > numberOf(high)))
  ) {
    return `does not fall in the allowed range ${rangeText(low)} to ${rangeText(high, "+oo")}`;
  }
  return null;
}

/**
 * [CSTRNCHK1] when a slot's default breaks its constraints ({@link staticViolation}). A static
 * default was evaluated when the template was read, so its values are constants.
 */
export function checkDefaultConstants(
  slotNode: SList,
  slot: Pick<
    SlotDef,
    | "name"
    | "multi"
    | "types"
    | "allowed"
    | "allowedTypes"
    | "range"
    | "cardinality"
    | "classAllowed"
  >,
  exprs: readonly Expr[],
  dynamic: boolean,
  construct: string,
): void {
  const broken = staticViolation(slot, exprs);
  if (broken === null) return;
  const where = dynamic ? "default-dynamic" : "default";
  const subject = broken.call ? "The function return value" : "An expression";
  throw rulesParseError(slotNode.pos, "a default the slot's constraints allow", broken.text, {
    construct,
    clips: `[CSTRNCHK1] ${subject} found in the ${where} attribute\n${broken.text} for slot ${slot.name}.`,
    echoThrough: true,
  });
}

/** Keel's own words for a slot value that breaks the slot's constraints (`broken`). */
export function violationText(template: string, slot: SlotDef, broken: string): string {
  const what =
    broken === "does not match the allowed types" && slot.types
      ? `expects ${slot.types.join(" or ")}`
      : `is given a value that ${broken}`;
  return `slot ${slot.name} of deftemplate ${template} ${what}`;
}

/** CLIPS's message for a slot of an assert, modify or duplicate that breaks its constraints. */
export function slotValueMessage(broken: StaticViolation, command: string, slot: string): string {
  const subject = broken.call
    ? "The function return value"
    : broken.cardinality
      ? "Literal slot values"
      : "A literal slot value";
  return `[CSTRNCHK1] ${subject} found in the ${command} command\n${broken.text} for slot ${slot}.`;
}

/** A range bound as CLIPS's PrintRange writes it. */
export function rangeText(bound: Value | null, none = "-oo"): string {
  return bound === null ? none : formatValue(bound);
}

/** CLIPS's [TMPLTDEF2]: a single-field slot given no value or several. */
export function singleFieldSlotMessage(slot: string): string {
  return `[TMPLTDEF2] The single field slot ${slot} can only contain a single field value.`;
}

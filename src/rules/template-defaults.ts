/**
 * CLIPS's parse-time checks of a deftemplate slot's default (tmpltpsr.c, default.c): a single
 * field slot's default holds one single-field value ([DEFAULT1]), and a constant default must
 * satisfy the slot's type and allowed values ([CSTRNCHK1]). Each error is echoed as CLIPS
 * echoes it: [DEFAULT1] through the attribute's `)`, [CSTRNCHK1] through the slot's.
 */
import type { SlotDef } from "./ast.js";
import { rulesParseError } from "./errors.js";
import type { SList, SNode } from "./reader.js";
import { typeOk } from "./slot-types.js";
import { formatValue, isNumber, numberOf, type Value, valuesEqual } from "./values.js";

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

const CONSTANT_KINDS = new Set(["symbol", "string", "integer", "float", "instance"]);

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

/**
 * [CSTRNCHK1] when the default's constants break the slot's cardinality (a multislot: how many
 * values it gives), type, allowed values or range, checked in CLIPS's order
 * (ConstraintCheckExpressionChain). A call counts as one value unless it returns a multifield.
 */
export function checkDefaultConstants(
  slotNode: SList,
  slot: Pick<
    SlotDef,
    "name" | "multi" | "types" | "allowed" | "allowedTypes" | "range" | "cardinality"
  >,
  args: readonly SNode[],
  dynamic: boolean,
  construct: string,
): void {
  const where = dynamic ? "default-dynamic" : "default";
  const fail = (what: string): never => {
    throw rulesParseError(slotNode.pos, `a default the slot's constraints allow`, what, {
      construct,
      clips: `[CSTRNCHK1] An expression found in the ${where} attribute\n${what} for slot ${slot.name}.`,
      echoThrough: true,
    });
  };
  if (slot.multi && slot.cardinality) {
    let min = 0;
    let open = false;
    for (const arg of args) {
      const call = arg.type === "list" ? arg.items[0] : undefined;
      if (arg.type === "atom" && CONSTANT_KINDS.has(arg.kind)) min++;
      else if (call?.type === "atom" && !MULTIFIELD_RESULT.has(call.text)) min++;
      else open = true;
    }
    const [low, high] = slot.cardinality;
    const max = open ? Number.POSITIVE_INFINITY : min;
    if ((high !== null && min > high) || (low !== null && max < low)) {
      fail("does not satisfy the cardinality restrictions");
    }
  }
  for (const arg of args) {
    if (arg.type !== "atom" || !CONSTANT_KINDS.has(arg.kind)) continue;
    const v = arg.value;
    if (slot.types && !typeOk(v, slot.types)) fail("does not match the allowed types");
    if (
      slot.allowed &&
      (!slot.allowedTypes || typeOk(v, slot.allowedTypes)) &&
      !slot.allowed.some((a) => valuesEqual(a, v))
    ) {
      fail("does not match the allowed values");
    }
    const [low, high] = slot.range ?? [null, null];
    if (
      isNumber(v) &&
      ((low !== null && numberOf(v) < numberOf(low)) ||
        (high !== null && numberOf(v) > numberOf(high)))
    ) {
      fail(`does not fall in the allowed range ${rangeText(low)} to ${rangeText(high, "+oo")}`);
    }
  }
}

/** A range bound as CLIPS's PrintRange writes it. */
export function rangeText(bound: Value | null, none = "-oo"): string {
  return bound === null ? none : formatValue(bound);
}

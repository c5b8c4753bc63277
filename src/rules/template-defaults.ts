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
import { valuesEqual } from "./values.js";

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

/** [CSTRNCHK1] when a constant of the default breaks the slot's type or allowed values. */
export function checkDefaultConstants(
  slotNode: SList,
  slot: Pick<SlotDef, "name" | "types" | "allowed" | "allowedTypes">,
  args: readonly SNode[],
  dynamic: boolean,
  construct: string,
): void {
  for (const arg of args) {
    if (arg.type !== "atom" || !CONSTANT_KINDS.has(arg.kind)) continue;
    const v = arg.value;
    let broken: string | null = null;
    if (slot.types && !typeOk(v, slot.types)) broken = "types";
    else if (
      slot.allowed &&
      (!slot.allowedTypes || typeOk(v, slot.allowedTypes)) &&
      !slot.allowed.some((a) => valuesEqual(a, v))
    ) {
      broken = "values";
    }
    if (broken === null) continue;
    const where = dynamic ? "default-dynamic" : "default";
    throw rulesParseError(slotNode.pos, `a default the slot's ${broken} allow`, arg.text, {
      construct,
      clips: `[CSTRNCHK1] An expression found in the ${where} attribute\ndoes not match the allowed ${broken} for slot ${slot.name}.`,
      echoThrough: true,
    });
  }
}

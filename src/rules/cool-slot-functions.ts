/**
 * COOL's slot functions (Basic Programming Guide 12.16.1.4 and 12.16.4): `slot-writablep`,
 * `slot-initablep`, `slot-facets`, `slot-sources` (and through cool-slot-info.ts the constraint
 * queries `slot-types`, `slot-range`, …), the multifield slot functions
 * `slot-replace$`, `slot-insert$`, `slot-delete$` (which store through the put- message) with
 * their `direct-slot-…$` forms for handlers (which store directly), and the CLIPS 6.30 names
 * still accepted for them: `mv-slot-…`, `direct-mv-…`, `get` and `put`.
 */
import { SLOT_INFO_FUNCTIONS, slotInfo } from "./cool-slot-info.js";
import { type DescribedSlot, slotFacetCodes } from "./describe-class.js";
import { rulesRuntimeError } from "./errors.js";
import { typeError } from "./function-args.js";
import {
  type Atom,
  FALSE,
  type InstanceName,
  isInteger,
  isMultifield,
  isSymbol,
  numberOf,
  TRUE,
  type Value,
} from "./values.js";

/** What these functions read of a class (objects.ts's ClassDef has it). */
interface SlottedClass {
  readonly name: string;
  readonly slots: readonly DescribedSlot[];
}

/** What they read of an instance (objects.ts's Instance is one). */
interface SlottedInstance {
  readonly instanceName: InstanceName;
  readonly deleted: boolean;
  readonly cls: SlottedClass;
  readonly slots: ReadonlyMap<string, Value>;
}

/** The older names CLIPS 6.30 still takes, and the function each is. */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ["mv-slot-replace", "slot-replace$"],
  ["mv-slot-insert", "slot-insert$"],
  ["mv-slot-delete", "slot-delete$"],
  ["direct-mv-replace", "direct-slot-replace$"],
  ["direct-mv-insert", "direct-slot-insert$"],
  ["direct-mv-delete", "direct-slot-delete$"],
  ["get", "dynamic-get"],
  ["put", "dynamic-put"],
]);

/** The functions this file answers (names the parser must know). */
export const SLOT_FUNCTIONS: readonly string[] = [
  "slot-writablep",
  "slot-initablep",
  "slot-facets",
  "slot-sources",
  ...SLOT_INFO_FUNCTIONS,
  "slot-replace$",
  "slot-insert$",
  "slot-delete$",
  // CLIPS 6.30 names the direct forms direct-slot-…$ in its messages but parses only these.
  ...ALIASES.keys(),
];

/** Their argument counts (min, max), checked when a call is parsed. */
export const SLOT_FUNCTION_ARITIES: readonly [string, number, number][] = [
  ["slot-writablep", 2, 2],
  ["slot-initablep", 2, 2],
  ["slot-facets", 2, 2],
  ["slot-sources", 2, 2],
  ...SLOT_INFO_FUNCTIONS.map((f): [string, number, number] => [f, 2, 2]),
  ["slot-replace$", 5, Number.POSITIVE_INFINITY],
  ["slot-insert$", 4, Number.POSITIVE_INFINITY],
  ["slot-delete$", 4, 4],
  ["mv-slot-replace", 5, Number.POSITIVE_INFINITY],
  ["mv-slot-insert", 4, Number.POSITIVE_INFINITY],
  ["mv-slot-delete", 4, 4],
  ["direct-mv-replace", 4, Number.POSITIVE_INFINITY],
  ["direct-mv-insert", 3, Number.POSITIVE_INFINITY],
  ["direct-mv-delete", 3, 3],
  ["get", 1, 1],
  ["put", 1, Number.POSITIVE_INFINITY],
];

/** What the functions need of the object system. */
export interface SlotFunctionHost<I extends SlottedInstance> {
  namedClass(v: Value, fn: string, index?: number): SlottedClass;
  instanceArg(v: Value, fn: string): I;
  currentSelf(fn: string): I;
  send(self: I, msg: string, args: Value[]): Value;
  setSlot(target: Value, slot: string, value: Value): Value;
  /** Prints a CLIPS message and goes on (what the direct forms do on a bad index). */
  report(clips: string): void;
  /** Runs the function `name` of the object system itself (dynamic-get, dynamic-put). */
  call(name: string, args: Value[]): Value | null;
}

/** The function `name` (an alias resolved) on `args`, or null when it is not one of these. */
export function slotFunction<I extends SlottedInstance>(
  host: SlotFunctionHost<I>,
  called: string,
  args: Value[],
): Value | null {
  const name = ALIASES.get(called) ?? called;
  if (name === "dynamic-get" || name === "dynamic-put") return host.call(name, args);
  if (SLOT_INFO_FUNCTIONS.includes(name)) return slotInfo(name, classSlot(host, name, args));
  switch (name) {
    case "slot-writablep":
    case "slot-initablep":
    case "slot-facets":
    case "slot-sources": {
      const slot = classSlot(host, name, args);
      const access = slot.facets.accessMode;
      if (name === "slot-writablep") return access === "read-write" ? TRUE : FALSE;
      if (name === "slot-initablep") return access !== "read-only" ? TRUE : FALSE;
      if (name === "slot-facets") return slotFacetCodes(slot);
      return [...slot.sources];
    }
    case "slot-replace$":
    case "slot-insert$":
    case "slot-delete$":
    case "direct-slot-replace$":
    case "direct-slot-insert$":
    case "direct-slot-delete$":
      return changeMultislot(host, name, args);
    default:
      return null;
  }
}

/** The slot `(fn CLASS SLOT)` names: [CLASSFUN1] for no class, [INSFUN3] for no slot. */
function classSlot<I extends SlottedInstance>(
  host: SlotFunctionHost<I>,
  fn: string,
  args: Value[],
): DescribedSlot {
  const cls = host.namedClass(args[0] as Value, fn);
  const slotName = args[1] as Value;
  if (!isSymbol(slotName)) throw typeError(fn, 2, "symbol");
  const slot = cls.slots.find((s) => s.name === slotName);
  if (!slot) {
    throw rulesRuntimeError(`class ${cls.name} has no slot ${slotName} (${fn})`, {
      clips: `[INSFUN3] No such slot ${slotName} in function ${fn}.`,
    });
  }
  return slot;
}

function indexArg(fn: string, v: Value | undefined, at: number): number {
  if (v === undefined || !isInteger(v)) throw typeError(fn, at, "integer");
  return numberOf(v);
}

/**
 * replace, insert or delete fields of a multislot. The direct forms run in a handler on its
 * instance and store the value directly; the others name the instance and store through put-.
 */
function changeMultislot<I extends SlottedInstance>(
  host: SlotFunctionHost<I>,
  fn: string,
  args: Value[],
): Value {
  const direct = fn.startsWith("direct-");
  const rest = direct ? args : args.slice(1);
  const inst = direct ? host.currentSelf(fn) : host.instanceArg(args[0] as Value, fn);
  const at = direct ? 1 : 2;
  const slotName = rest[0] as Value;
  if (!isSymbol(slotName)) throw typeError(fn, at, "symbol");
  const slot = inst.cls.slots.find((s) => s.name === slotName);
  if (!slot) {
    throw rulesRuntimeError(`[${inst.instanceName.name}] has no slot ${slotName} (${fn})`, {
      clips: `[INSFUN3] No such slot ${slotName} in function ${fn}.`,
    });
  }
  if (!slot.multi) {
    throw rulesRuntimeError(`${fn} needs a multislot; ${slotName} is single-field`, {
      clips: `[INSMULT1] Function ${fn} cannot be used on single-field slot ${slotName} in instance ${inst.instanceName.name}.`,
    });
  }
  const old = inst.slots.get(slotName) as Value;
  const fields: Atom[] = isMultifield(old) ? [...old] : [old as Atom];
  const values = rest
    .slice(fn.includes("insert") ? 2 : 3)
    .flatMap((v) => (isMultifield(v) ? v : [v]));
  const begin = indexArg(fn, rest[1], at + 1);
  // A bad index: the direct forms print the message and give FALSE, the others halt.
  const outOfRange = (clips: string): Value => {
    if (!direct) throw rulesRuntimeError(`${fn}: index out of range`, { clips });
    host.report(clips);
    return FALSE;
  };
  let next: Atom[];
  if (fn.includes("insert")) {
    if (begin < 1) {
      return outOfRange(
        `[MULTIFUN1] Multifield index ${begin} out of range 1..${fields.length + 1} in function ${fn}.`,
      );
    }
    const i = Math.min(begin, fields.length + 1) - 1;
    next = [...fields.slice(0, i), ...values, ...fields.slice(i)];
  } else {
    const end = indexArg(fn, rest[2], at + 2);
    if (begin < 1 || end < begin || end > fields.length) {
      return outOfRange(
        `[MULTIFUN1] Multifield index range ${begin}..${end} out of range 1..${fields.length} in function ${fn}.`,
      );
    }
    next = [
      ...fields.slice(0, begin - 1),
      ...(fn.includes("replace") ? values : []),
      ...fields.slice(end),
    ];
  }
  if (direct) {
    host.setSlot(inst, slotName, next);
    return TRUE;
  }
  return host.send(inst, `put-${slotName}`, next);
}

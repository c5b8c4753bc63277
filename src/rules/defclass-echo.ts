/**
 * The `ERROR:` echo of a defclass whose slot failed: CLIPS parses and checks a slot when it
 * reads the slot's `)`, so the echo is the class as ppdefclass prints it through that slot (a
 * default that failed to compute), or through the token of the slot's facet it had just read
 * (an expression that failed to parse). error-echo.ts's token counting knows no defclass
 * layout; this gives such errors their `echoText`.
 */
import { isKeelError } from "../core/index.js";
import { ppCool } from "./pp-cool.js";
import { tokenText } from "./pp-reader.js";
import type { SList, SNode } from "./reader.js";

const SLOTS = new Set(["slot", "single-slot", "multislot"]);
/** Messages about a function name: the echo stops after the name (error-echo.ts's AT_NAME). */
const AT_NAME = new Set(["EXPRNPSR3"]);
/** Messages about a call's arguments, checked once its `)` is read: the echo runs through it. */
const AFTER_CALL = new Set(["ARGACCES4", "ARGACCES5"]);

/** Sets the echo of an error a defclass's slot raised (changed in place; returned to rethrow). */
export function withDefclassEcho(error: unknown, form: SList, module: string): unknown {
  if (!isKeelError(error)) return error;
  const d = error.details;
  if (typeof d.clips !== "string" || d.echoText !== undefined) return error;
  const items = form.items;
  const slotAt = (name: string) =>
    items.findIndex(
      (n) =>
        n.type === "list" &&
        n.items[0]?.type === "atom" &&
        SLOTS.has(n.items[0].text) &&
        n.items[1]?.type === "atom" &&
        n.items[1].text === name,
    );
  if (typeof d.echoSlot === "string") {
    const p = slotAt(d.echoSlot);
    if (p >= 0) d.echoText = ppCool({ ...form, items: items.slice(0, p + 1) }, module).slice(0, -2);
    return error;
  }
  const id = /^\[([A-Z]+\d+)\]/.exec(d.clips)?.[1];
  if (id === undefined) return error;
  const named = AT_NAME.has(id) || AFTER_CALL.has(id);
  if ((d.echoThrough !== true && !named) || typeof d.line !== "number") return error;
  const pos = { line: d.line, column: d.column };
  const after = typeof d.echoAfter === "string" ? d.echoAfter : "";
  for (let p = 2; p < items.length; p++) {
    const slot = items[p] as SNode;
    if (slot.type !== "list" || !SLOTS.has(tokenOf(slot.items[0]))) continue;
    if (slot.pos.line === pos.line && slot.pos.column === pos.column) {
      // Found once the slot was read: through its `)`.
      d.echoText = ppCool({ ...form, items: items.slice(0, p + 1) }, module).slice(0, -2);
      return error;
    }
    for (let k = 2; k < slot.items.length; k++) {
      const facet = slot.items[k] as SNode;
      let target = find(facet, pos.line, pos.column);
      if (target === null) continue;
      if (AT_NAME.has(id) && target.type === "list") target = target.items[0] ?? target;
      if (AFTER_CALL.has(id) && target.type === "atom") target = parentOf(facet, target) ?? target;
      const before = ppCool(
        { ...form, items: [...items.slice(0, p), { ...slot, items: slot.items.slice(0, k) }] },
        module,
      ).slice(0, -3);
      // An attribute wrong as a whole is echoed through its `)`; an empty one with the space
      // CLIPS wrote while it waited for a value.
      const empty = target === facet && facet.type === "list" && facet.items.length === 1;
      const text = empty ? `(${flat(facet.items[0] as SNode)} )` : partial(facet, target);
      d.echoText = `${before}\n      ${text}${after}`;
      return error;
    }
  }
  return error;
}

function tokenOf(n: SNode | undefined): string {
  return n?.type === "atom" ? n.text : "";
}

/** The outermost node starting at line:column inside `n`, or null. */
function find(n: SNode, line: unknown, column: unknown): SNode | null {
  if (n.pos.line === line && n.pos.column === column) return n;
  if (n.type !== "list") return null;
  for (const item of n.items) {
    const hit = find(item, line, column);
    if (hit) return hit;
  }
  return null;
}

/** `n` on one line up to and through `target` (a list target whole). */
function partial(n: SNode, target: SNode): string {
  if (n === target || n.type !== "list") return flat(n);
  const parts: string[] = [];
  for (const item of n.items) {
    if (item === target || contains(item, target)) {
      parts.push(partial(item, target));
      break;
    }
    parts.push(flat(item));
  }
  return `(${parts.join(" ")}`;
}

/** The list directly holding `target` inside `n`, or null. */
function parentOf(n: SNode, target: SNode): SNode | null {
  if (n.type !== "list") return null;
  if (n.items.includes(target)) return n;
  for (const item of n.items) {
    const hit = parentOf(item, target);
    if (hit) return hit;
  }
  return null;
}

function contains(n: SNode, target: SNode): boolean {
  return n.type === "list" && n.items.some((i) => i === target || contains(i, target));
}

function flat(n: SNode): string {
  return n.type === "list" ? `(${n.items.map(flat).join(" ")})` : tokenText(n);
}

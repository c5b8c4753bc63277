/**
 * The text CLIPS 6.30 keeps for a defclass or definstances (what `ppdefclass` and
 * `ppdefinstances` print): the header, then each part of the construct on its own line three
 * spaces in, and each slot's facets (each instance's slot values) on their own lines six in.
 *
 * @example
 * ppCool(readForms("(defclass A (is-a USER) (slot x (default 1)))")[0] as SList, "MAIN")
 * // "(defclass MAIN::A\n   (is-a USER)\n   (slot x\n      (default 1)))\n"
 */

import { tokenText } from "./pp-reader.js";
import type { SAtom, SList, SNode } from "./reader.js";

/** The pretty-printed text of a defclass or definstances form, ending in a line break. */
export function ppCool(form: SList, module: string): string {
  const [head, nameNode, ...rest] = form.items;
  const name = nameNode ? flat(nameNode) : "";
  let out = `(${head ? flat(head) : ""} ${name.includes("::") ? name : `${module}::${name}`}`;
  const definstances = head?.type === "atom" && head.text === "definstances";
  let i = 0;
  // A comment, and definstances's `active`, stay on the header line.
  while (i < rest.length && rest[i]?.type === "atom") out += ` ${flat(rest[i++] as SNode)}`;
  for (; i < rest.length; i++) {
    const part = rest[i] as SNode;
    out += `\n   ${definstances ? instanceText(part) : classPart(part)}`;
  }
  return `${out})\n`;
}

/** A slot with each facet on its own line; any other part of a class as written. */
function classPart(n: SNode): string {
  const head = n.type === "list" ? n.items[0] : undefined;
  const slot = head?.type === "atom" && ["slot", "single-slot", "multislot"].includes(head.text);
  if (!slot || n.type !== "list") return flat(n);
  const [, slotName, ...facets] = n.items;
  let out = `(${flat(head)}${slotName ? ` ${flat(slotName)}` : ""}`;
  for (const f of facets) out += `\n      ${flat(f)}`;
  return `${out})`;
}

/** `(name of CLASS` with each slot value on its own line. */
function instanceText(n: SNode): string {
  if (n.type !== "list") return flat(n);
  const atoms: string[] = [];
  let i = 0;
  for (; i < n.items.length && n.items[i]?.type === "atom"; i++) {
    atoms.push(flat(n.items[i] as SNode));
  }
  let out = `(${atoms.join(" ")}`;
  for (; i < n.items.length; i++) out += `\n      ${flat(n.items[i] as SNode)}`;
  return `${out})`;
}

/** A form on one line, one space between its parts. */
function flat(n: SNode): string {
  return n.type === "list" ? `(${n.items.map(flat).join(" ")})` : atomText(n);
}

/** An atom as the reader's printer writes it, but numbers as they were written (as CLIPS does here). */
function atomText(a: SAtom): string {
  return a.kind === "integer" || a.kind === "float" ? a.text : tokenText(a);
}

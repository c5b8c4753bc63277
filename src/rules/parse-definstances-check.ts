/**
 * A definstances checked as CLIPS 6.30's ParseDefinstances reads it (insfile.c, defins.c): each
 * error names what was wrong and echoes the construct as far as CLIPS had read it — the header,
 * the instances before the bad one pretty-printed as ppdefinstances prints them, then the bad
 * one's tokens.
 */
import { echoToken, failWithEcho, syntaxError } from "./construct-check.js";
import { checkConstructName } from "./parse-procedural.js";
import { ppCool } from "./pp-cool.js";
import type { SList, SNode } from "./reader.js";

/** What the check needs to know of a class: null when it is not defined. */
export type ClassLookup = (name: string) => { readonly abstract: boolean } | null;

function fail(at: SNode, clips: string, echoText: string): never {
  return failWithEcho("definstances", at, clips, echoText);
}
const syntax = syntaxError;

const tok = echoToken;

/**
 * Throws CLIPS's error for a bad definstances: no name ([CSTRCPSR2]), an atom where an
 * instance belongs, an instance without `of` or a class, a class that is not defined
 * ([PRNTUTIL1]) or abstract ([INSMNGR3]), a slot override that is no list.
 */
export function checkDefinstances(list: SList, module: string, classOf: ClassLookup): void {
  checkConstructName(list);
  const items = list.items;
  let at = 2;
  while (at < items.length && items[at]?.type === "atom") {
    const a = items[at] as SNode & { kind: string; text: string };
    const header = a.kind === "string" || (a.text === "active" && at === 2);
    if (!header) break;
    at++;
  }
  // The header and the instances read so far, as ppdefinstances writes them.
  const echoUpTo = (end: number): string => {
    const text = ppCool({ ...list, items: items.slice(0, end) }, module);
    return text.slice(0, -2);
  };
  for (; at < items.length; at++) {
    const inst = items[at] as SNode;
    const before = echoUpTo(at);
    if (inst.type !== "list") fail(inst, syntax("definstances"), `${before}\n   ${tok(inst)}`);
    const parts = inst.items;
    if (parts.length === 0) fail(inst, syntax("instance"), `${before}\n   ()`);
    let k = 0;
    const isOf = (n: SNode | undefined) =>
      n?.type === "atom" && n.kind === "symbol" && n.text === "of";
    const read: string[] = [];
    if (!isOf(parts[0])) {
      read.push(tok(parts[0]));
      k = 1;
      if (!isOf(parts[1])) {
        fail(
          parts[1] ?? inst,
          syntax("make-instance"),
          `${before}\n   (${read.join(" ")} ${tok(parts[1])}`,
        );
      }
    }
    read.push("of");
    const cls = parts[k + 1];
    if (cls === undefined)
      fail(inst, syntax("instance class"), `${before}\n   (${read.join(" ")} )`);
    if (cls.type === "atom" && cls.kind === "symbol") {
      const found = classOf(cls.text);
      const echo = `${before}\n   (${[...read, cls.text].join(" ")}`;
      if (found === null) fail(cls, `[PRNTUTIL1] Unable to find class ${cls.text}.`, echo);
      if (found.abstract) {
        fail(cls, `[INSMNGR3] Cannot create instances of abstract class ${cls.text}.`, echo);
      }
    }
    for (let s = k + 2; s < parts.length; s++) {
      const slot = parts[s] as SNode;
      if (slot.type === "list") continue;
      // CLIPS writes the bad token straight after what it read (no space).
      const done = ppCool(
        { ...list, items: [...items.slice(0, at), { ...inst, items: parts.slice(0, s) }] },
        module,
      );
      fail(slot, syntax("slot-override"), `${done.slice(0, -3)}${tok(slot)}`);
    }
  }
}

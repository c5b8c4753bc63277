/**
 * The layout object patterns are parsed against and instances are matched by (object-match.ts).
 */
import type { SlotDef, Template } from "./ast.js";

/** The relation object patterns and instances use (CLIPS reserves the name `object`). */
export const OBJECT_RELATION = "object";

/** A slot the instance's class does not have: no pattern test ever sees it. */
export const ABSENT = "\u0000absent";

function slotDef(name: string, multi: boolean): SlotDef {
  return { name, multi, default: { kind: "derive", exprs: [] }, types: null, allowed: null };
}

/**
 * The layout of object patterns and instances: `is-a` (the class name), `name` (the instance
 * name), then each slot name in the order a class first defined it. It only grows, so patterns
 * compiled earlier keep their slot indices.
 */
export class ObjectTemplate implements Template {
  readonly name = OBJECT_RELATION;
  readonly source = "";
  readonly slots: SlotDef[] = [slotDef("is-a", false), slotDef("name", false)];
  readonly slotIndex = new Map<string, number>([
    ["is-a", 0],
    ["name", 1],
  ]);

  /** Makes room for a class's slot (a multislot in any class is matched as a multifield). */
  add(name: string, multi: boolean): void {
    const at = this.slotIndex.get(name);
    if (at === undefined) {
      this.slotIndex.set(name, this.slots.length);
      this.slots.push(slotDef(name, multi));
    } else if (multi && !(this.slots[at] as SlotDef).multi) this.slots[at] = slotDef(name, true);
  }
}

/**
 * CLIPS checks, once a rule is read, that `(modify ?f (slot …))` and `(duplicate ?f …)` name
 * slots of the deftemplate `?f`'s pattern matches ([TMPLTDEF1], the whole rule echoed), and
 * give a single-field slot one value ([TMPLTDEF2]).
 *
 * @example
 * // (defrule r ?f <- (point (x 1)) => (modify ?f (z 2))) fails with
 * // "[TMPLTDEF1] Invalid slot z not defined in corresponding deftemplate point."
 */
import type { CE, Expr, Template } from "./ast.js";
import { rulesLoadError } from "./errors.js";
import {
  singleFieldSlotMessage,
  slotValueMessage,
  staticViolation,
  violationText,
} from "./template-defaults.js";

/** Throws for the first modify/duplicate of a template fact address naming a slot it lacks. */
export function checkRhsSlots(ces: readonly CE[], actions: readonly Expr[], construct: string) {
  const templates = new Map<string, Template>();
  for (const ce of ces) {
    if (ce.type === "pattern" && ce.addressVar !== null && ce.template !== null && !ce.object) {
      templates.set(ce.addressVar, ce.template);
    }
  }
  if (templates.size === 0) return;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    if (node === null || typeof node !== "object") return;
    const e = node as Partial<Expr> & Record<string, unknown>;
    if ((e.k === "modify" || e.k === "duplicate") && e.target?.k === "var") {
      const template = templates.get(e.target.name);
      for (const slot of template ? (e.slots ?? []) : []) {
        const index = template?.slotIndex.get(slot.name);
        const def = index === undefined ? undefined : template?.slots[index];
        if (def && !def.multi && slot.values.length !== 1) {
          throw rulesLoadError(slot.pos, `slot '${slot.name}' takes exactly one value`, {
            construct,
            clips: singleFieldSlotMessage(slot.name),
            echoWhole: true,
          });
        }
        const broken = def ? staticViolation(def, slot.values) : null;
        if (def && broken) {
          throw rulesLoadError(
            slot.pos,
            violationText((template as Template).name, def, broken.text),
            {
              construct,
              clips: slotValueMessage(broken, e.k, slot.name),
              echoWhole: true,
            },
          );
        }
        if (template && !template.slotIndex.has(slot.name)) {
          throw rulesLoadError(
            slot.pos,
            `slot '${slot.name}' is not in deftemplate '${template.name}'`,
            {
              construct,
              clips: `[TMPLTDEF1] Invalid slot ${slot.name} not defined in corresponding deftemplate ${template.name}.`,
              echoWhole: true,
            },
          );
        }
      }
    }
    for (const [key, value] of Object.entries(e)) {
      if (key !== "pos" && typeof value === "object") visit(value);
    }
  };
  visit(actions);
}

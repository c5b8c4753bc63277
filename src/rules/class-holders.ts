/**
 * What holds a class, so that it can be neither deleted (undefclass: [PRNTUTIL4]) nor defined
 * again ([CLASSPSR3]) — CLIPS 6.30's busy count (classfun.c IsClassBeingUsed), which it keeps
 * for: the class's instances, a defmethod's parameter restriction naming it, a running
 * message whose handlers it defines, an object pattern that can match it (objrtbld.c marks
 * every class of the pattern's class bitmap), and a constant class name compiled into a
 * construct's code (make-instance's class, an instance-set query's classes). A class is held
 * when it or one of its subclasses is.
 *
 * @example
 * // (defclass A (is-a USER)) (defrule r (object (is-a A)) =>) (undefclass A)
 * // prints "[PRNTUTIL4] Unable to delete defclass A." while r exists.
 */
import type { CE, PatternCE } from "./ast.js";
import { candidateClasses } from "./object-pattern-slots.js";
import type { ClassDef } from "./objects.js";
import { QUERY_FUNCTIONS } from "./parse-expr.js";
import type { SNode } from "./reader.js";

/** The object patterns of a rule's conditions, nested ones included. */
export function objectPatterns(ces: readonly CE[]): PatternCE[] {
  return ces.flatMap((ce): PatternCE[] => {
    switch (ce.type) {
      case "pattern":
        return ce.object ? [ce] : [];
      case "test":
        return [];
      case "not":
        return objectPatterns([ce.ce]);
      case "forall":
        return objectPatterns([ce.first, ...ce.rest]);
      default:
        return objectPatterns(ce.ces);
    }
  });
}

/**
 * The classes an object pattern can match, fixed when its rule is defined: the reactive
 * concrete classes of `all`, narrowed by `is-a` (a class and its subclasses) and by each slot
 * the pattern names (the classes having it, pattern-matched).
 */
export function patternClasses(ce: PatternCE, all: readonly ClassDef[]): ClassDef[] {
  const slots = [...ce.slots.keys()].flatMap((index) => {
    const name = ce.template?.slots[index]?.name;
    return name === undefined || name === "is-a" || name === "name" ? [] : [name];
  });
  return candidateClasses(all, ce.object?.classes ?? null, slots);
}

/** The instance-set query functions: their `((?v CLASS…)…)` names classes. */
const INSTANCE_QUERIES = new Set([...QUERY_FUNCTIONS].filter((fn) => fn.includes("instance")));

/**
 * Whether a construct's form names the class `cls` where CLIPS compiles a reference to it:
 * `(make-instance [name] of CLS …)` (a definstances's instances too) and an instance-set
 * query's class list.
 */
export function formNamesClass(node: SNode, cls: string): boolean {
  if (node.type !== "list") return false;
  const items = node.items;
  const head = items[0];
  if (head?.type === "atom" && head.kind === "symbol") {
    if (head.text === "make-instance" || head.text === "active-make-instance") {
      if (classAfterOf(items.slice(1)) === cls) return true;
    }
    // A definstances makes each instance with a make-instance call.
    if (head.text === "definstances") {
      if (items.some((n) => n.type === "list" && classAfterOf(n.items) === cls)) return true;
    }
    const spec = items[1];
    if (INSTANCE_QUERIES.has(head.text) && spec?.type === "list") {
      const names = spec.items.flatMap((v) => (v.type === "list" ? v.items.slice(1) : []));
      if (names.some((n) => n.type === "atom" && n.kind === "symbol" && n.text === cls)) {
        return true;
      }
    }
  }
  return items.some((n) => formNamesClass(n, cls));
}

/** `[name] of CLASS …`: the class, when it is written as a symbol. */
function classAfterOf(items: readonly SNode[]): string | null {
  const of = items.findIndex((n, i) => i < 2 && n.type === "atom" && n.text === "of");
  const named = of >= 0 ? items[of + 1] : undefined;
  return named?.type === "atom" && named.kind === "symbol" ? named.text : null;
}

/**
 * What the engine knows of a class's holders. Each is asked of the class itself: a name names
 * it only where it resolves to it (classes are keyed by module, `MOD::NAME`).
 */
export interface ClassHolders {
  /** Whether a defmethod's parameter restriction names the class. */
  namedByMethod(cls: ClassDef): boolean;
  /** Whether a rule's object pattern can match the class. */
  matchedByRule(cls: ClassDef): boolean;
  /** Whether a construct's code names the class (see {@link formNamesClass}). */
  namedByCode(cls: ClassDef): boolean;
  /** Whether a message being dispatched runs handlers the class defines. */
  handlersRunning(cls: ClassDef): boolean;
}

/** Whether something holds the class or one of its subclasses (CLIPS's IsClassBeingUsed). */
export function classHeld(cls: ClassDef, holders: ClassHolders): boolean {
  return (
    cls.instances.length > 0 ||
    holders.namedByMethod(cls) ||
    holders.matchedByRule(cls) ||
    holders.handlersRunning(cls) ||
    holders.namedByCode(cls) ||
    cls.subclasses.some((s) => classHeld(s, holders))
  );
}

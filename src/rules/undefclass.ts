/**
 * `(undefclass NAME)` as CLIPS 6.30 runs it (classcom.c): the class goes with all its
 * subclasses; `*` is every user class of the current module (or the one class named `*`). A
 * system class, or a class something holds (class-holders.ts: its or its subclasses' instances,
 * a method restriction, a rule's object pattern, …) stays: [PRNTUTIL4]. An unknown name is
 * [PRNTUTIL1].
 */
import { rulesRuntimeError } from "./errors.js";
import { typeError } from "./function-args.js";
import type { SList } from "./reader.js";
import { isSymbol, type Value } from "./values.js";

/** A class as undefclass sees it (objects.ts's ClassDef is one). */
export interface UndefinableClass {
  readonly name: string;
  readonly subclasses: readonly UndefinableClass[];
}

/** What the engine gives the command (`C`: its classes, found by name, then held or removed). */
export interface UndefclassHost<C extends UndefinableClass = UndefinableClass> {
  classNamed(name: string): C | undefined;
  isSystemClass(name: string): boolean;
  /** The user classes defined in the current module, oldest first. */
  moduleClasses(): string[];
  /** Whether something holds the class or one of its subclasses (class-holders.ts). */
  held(cls: C): boolean;
  /** Deletes the class and its subclasses (their texts and handlers too). */
  remove(cls: C): void;
  print(text: string): void;
}

/** Runs `(undefclass name)`. */
export function undefclass<C extends UndefinableClass>(
  args: readonly Value[],
  host: UndefclassHost<C>,
): void {
  const target = args[0] as Value;
  if (!isSymbol(target)) throw typeError("undefclass", 1, "symbol");
  const all = target === "*" && host.classNamed("*") === undefined;
  const names = all ? host.moduleClasses() : [target];
  for (const name of names) {
    const cls = host.classNamed(name);
    if (cls === undefined) {
      throw rulesRuntimeError(`unable to find defclass ${name}`, {
        clips: `[PRNTUTIL1] Unable to find defclass ${name}.`,
        hint: "list-defclasses lists the classes there are.",
      });
    }
    if (host.isSystemClass(name) || host.held(cls)) {
      host.print(`[PRNTUTIL4] Unable to delete defclass ${name}.\n`);
      continue;
    }
    host.remove(cls);
  }
}

/** Whether a defmethod's parameter restrictions name the class `cls`. */
export function methodNamesClass(form: SList, cls: string): boolean {
  const params = form.items.slice(2).find((n) => n.type === "list");
  if (params?.type !== "list") return false;
  return params.items.some(
    (p) => p.type === "list" && p.items.slice(1).some((r) => r.type === "atom" && r.text === cls),
  );
}

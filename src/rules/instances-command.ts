/**
 * `(instances [MODULE [CLASS [inherit]]])` as CLIPS 6.30 lists instances (inscom.c): without a
 * class, a module's listing is every instance of a class the module sees, oldest first; `*`
 * lists, under each module's name, the instances of the classes that module defines; with a
 * class, the instances of the class of that name the module defines (and of its subclasses
 * with `inherit`, each class once). Class names outside the listed module print as `MOD::NAME`.
 *
 * @example
 * // (defmodule FOO (export ?ALL)) (defclass C (is-a USER)) (make-instance c of C)
 * // (defmodule BAR (import FOO ?ALL)) (instances) prints "[initial-object] of INITIAL-OBJECT
 * // [c] of FOO::C\nFor a total of 2 instances.\n"
 */
import { inheritFlag } from "./cool-args.js";
import { rulesRuntimeError } from "./errors.js";
import { typeError } from "./function-args.js";
import { isSymbol, type Value } from "./values.js";

/** The parts of a class and an instance the listing reads. */
export interface ListedClass {
  readonly name: string;
  readonly subclasses: readonly ListedClass[];
  readonly instances: readonly { readonly instanceName: { readonly name: string } }[];
}

/** What the listing asks the object system. */
export interface InstancesHost<C extends ListedClass> {
  /** Every instance with its class, oldest first. */
  instances(): Iterable<{ readonly instanceName: { readonly name: string }; readonly cls: C }>;
  current(): string;
  modules(): readonly string[];
  moduleExists(module: string): boolean;
  /** The classes `module` defines, in definition order. */
  classesOf(module: string): readonly C[];
  /** The class `name` defined in `module`, or in any module when null (LookupDefclassAnywhere). */
  classIn(module: string | null, name: string): C | undefined;
  sees(cls: C, module: string): boolean;
  /** The class's name as printed from `module`. */
  label(cls: C, module: string): string;
}

/** The text `(instances …)` prints (nothing for no instance at all, as CLIPS). */
export function instancesCommand<C extends ListedClass>(
  host: InstancesHost<C>,
  args: readonly Value[],
): string {
  const fn = "instances";
  const [moduleArg, clsArg] = args;
  let module: string | null = host.current();
  if (moduleArg !== undefined) {
    if (!isSymbol(moduleArg)) throw typeError(fn, 1, "symbol");
    if (moduleArg !== "*" && !host.moduleExists(moduleArg)) {
      throw typeError(fn, 1, "defmodule name");
    }
    module = moduleArg === "*" ? null : moduleArg;
  }
  let clsName: string | null = null;
  if (clsArg !== undefined) {
    if (!isSymbol(clsArg)) throw typeError(fn, 2, "symbol");
    if (host.classIn(module, clsArg) !== undefined) clsName = clsArg;
    else if (clsArg !== "*") throw noClass(clsArg);
  }
  const inherit = inheritFlag(fn, args, 3);
  const listed = new Set<C>();
  let out = "";
  let count = 0;
  // A class's direct instances, then (inherit) its subclasses', each class once.
  const tabulate = (cls: C, from: string, indent: string): void => {
    if (listed.has(cls)) return;
    listed.add(cls);
    for (const i of cls.instances) {
      out += `${indent}[${i.instanceName.name}] of ${host.label(cls, from)}\n`;
      count++;
    }
    if (inherit) for (const s of cls.subclasses) tabulate(s as C, from, indent);
  };
  if (module !== null) {
    if (clsName === null) {
      for (const i of host.instances()) {
        if (!host.sees(i.cls, module)) continue;
        out += `[${i.instanceName.name}] of ${host.label(i.cls, module)}\n`;
        count++;
      }
    } else {
      const cls = host.classIn(module, clsName);
      if (cls) tabulate(cls, module, "");
    }
  } else {
    for (const m of host.modules()) {
      out += `${m}:\n`;
      if (clsName === null) for (const c of host.classesOf(m)) tabulate(c, m, "   ");
      else {
        const cls = host.classIn(m, clsName);
        if (cls) tabulate(cls, m, "   ");
      }
    }
  }
  // CLIPS's tally says nothing of no instances.
  if (count === 0) return out;
  return `${out}For a total of ${count} instance${count === 1 ? "" : "s"}.\n`;
}

function noClass(name: string): Error {
  return rulesRuntimeError(`class ${name} is not defined (instances)`, {
    clips: `[CLASSFUN1] Unable to find class ${name} in function instances.`,
  });
}

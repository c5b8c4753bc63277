/**
 * The generic-function commands of CLIPS 6.30 (BPG 12.10): `ppdefgeneric`, `ppdefmethod`,
 * `list-defgenerics`, `list-defmethods`, `get-defgeneric-list`, `get-defmethod-list`,
 * `preview-generic`, `undefgeneric` and `undefmethod`, with CLIPS's output and messages. A method
 * is named by its generic and index and listed with its restrictions, in precedence order.
 *
 * @example
 * // (defmethod f ((?a INTEGER)) 1) (defmethod f ((?a NUMBER)) 2) then (list-defmethods) prints
 * // "f #1  (INTEGER)\nf #2  (NUMBER)\nFor a total of 2 methods.\n"
 */
import type { ConstructTexts } from "./construct-texts.js";
import { rulesRuntimeError } from "./errors.js";
import { typeError } from "./function-args.js";
import { GENERIC_COMMANDS } from "./generic-command-names.js";
import type { Generics } from "./generics.js";
import { moduleArgument, moduleListing } from "./introspect.js";
import { bareName } from "./module-scope.js";
import { ppDefmethod, ppExpression } from "./pp-constructs.js";
import type { SList } from "./reader.js";
import { type Atom, FALSE, isInteger, isSymbol, TRUE, type Value, VOID } from "./values.js";

export { GENERIC_COMMANDS };

/** What the commands read from the engine. */
export interface GenericCommandHost {
  readonly generics: Generics;
  readonly texts: ConstructTexts;
  /** The current module. */
  module(): string;
  /** Every module, in definition order. */
  modules(): string[];
  /**
   * The generic function a typed name stands for from the current module (`MOD::name` that
   * module's, a bare name one the module sees), undefined for none.
   */
  resolve(typed: string): string | undefined;
  print(text: string): void;
  /** Deletes a generic function: its methods, its callable and its text. */
  forgetGeneric(name: string): void;
  /** Whether the command being run (a top-level call) calls generic `key`: CLIPS then keeps it. */
  calledNow(key: string): boolean;
  /**
   * Whether other code calls generic `key` (a rule, deffunction or other construct, another
   * generic's method, a message-handler): CLIPS then keeps it from `undefgeneric` by name.
   */
  heldByCode(key: string): boolean;
}

/** Runs one generic-function command; null when `name` is not one. */
export function genericCommand(
  host: GenericCommandHost,
  name: string,
  args: readonly Value[],
): Value | null {
  switch (name) {
    case "ppdefgeneric":
      return ppdefgeneric(host, args[0]);
    case "ppdefmethod":
      return ppdefmethod(host, args);
    case "list-defgenerics": {
      const modules = moduleArgument(host, name, args[0]);
      if (modules) {
        host.print(moduleListing("defgeneric", modules, (m) => host.generics.names(m)));
      }
      return VOID;
    }
    case "list-defmethods":
      return listDefmethods(host, args[0]);
    case "get-defgeneric-list":
      return host.generics.names(host.module());
    case "get-defmethod-list": {
      const keys =
        args[0] === undefined ? host.generics.keys(host.module()) : [generic(host, name, args[0])];
      return keys.flatMap((n) =>
        (host.generics.describe(n) ?? []).flatMap((m) => [bareName(n), m.index]),
      );
    }
    case "preview-generic": {
      const g = generic(host, name, args[0]);
      for (const m of host.generics.applicable(g, args.slice(1)) ?? [])
        host.print(`${bareName(g)} ${m.text}\n`);
      return VOID;
    }
    case "undefgeneric":
      return undefgeneric(host, args[0]);
    case "undefmethod":
      return undefmethod(host, args);
    case "get-method-restrictions":
      return methodRestrictions(host, args);
    default:
      return null;
  }
}

/** The generic function argument #1 names; CLIPS's [GENRCFUN3] when there is none. */
function generic(host: GenericCommandHost, fn: string, arg: Value | undefined): string {
  if (arg === undefined || !isSymbol(arg)) {
    throw typeError(fn, 1, "symbol");
  }
  const found = host.resolve(arg);
  if (found === undefined) {
    throw rulesRuntimeError(`no generic function ${arg}`, {
      clips: `[GENRCFUN3] Unable to find generic function ${arg} in function ${fn}.`,
      hint: "list-defgenerics lists the generic functions there are.",
    });
  }
  return found;
}

/** `(ppdefgeneric name)`: `(defgeneric MODULE::name ["comment"])`. */
function ppdefgeneric(host: GenericCommandHost, arg: Value | undefined): Value {
  if (arg === undefined || !isSymbol(arg)) {
    throw typeError("ppdefgeneric", 1, "symbol");
  }
  const key = host.resolve(arg);
  const module = key === undefined ? undefined : host.generics.moduleOf(key);
  if (key === undefined || module === undefined) {
    throw rulesRuntimeError(`unable to find defgeneric ${arg}`, {
      clips: `[PRNTUTIL1] Unable to find defgeneric ${arg}.`,
    });
  }
  // A generic made by its first defmethod has no defgeneric text: CLIPS writes the header alone.
  const name = bareName(key);
  const form = [...host.texts.entries()].find(
    (e) => e.kind === "defgeneric" && e.name === name && e.module === module,
  )?.form;
  const comment = form?.items[2];
  const text =
    comment?.type === "atom" && comment.kind === "string" ? ` ${ppExpression(comment)}` : "";
  host.print(`(defgeneric ${module}::${name}${text})\n`);
  return VOID;
}

/** `(ppdefmethod name index)`. */
function ppdefmethod(host: GenericCommandHost, args: readonly Value[]): Value {
  const [name, index] = args;
  if (name === undefined || !isSymbol(name)) {
    throw typeError("ppdefmethod", 1, "symbol");
  }
  if (index === undefined || !isInteger(index)) {
    throw typeError("ppdefmethod", 2, "integer");
  }
  const g = generic(host, "ppdefmethod", name);
  const form = method(host, "ppdefmethod", g, Number(index));
  const text = form === null ? null : ppDefmethod(form, host.generics.moduleOf(g) ?? "MAIN");
  if (text !== null) host.print(text);
  return VOID;
}

/**
 * `(get-method-restrictions name index)`: CLIPS's layout, `min max count`, then where each
 * restriction's entry starts (1-based), then each entry: `query-flag class-count class…`.
 */
function methodRestrictions(host: GenericCommandHost, args: readonly Value[]): Value {
  const g = generic(host, "get-method-restrictions", args[0]);
  const index = args[1];
  if (index === undefined || !isInteger(index)) {
    throw typeError("get-method-restrictions", 2, "integer");
  }
  method(host, "get-method-restrictions", g, Number(index));
  const r = host.generics.restrictions(g, Number(index));
  if (r === undefined) return [];
  const entries: Atom[][] = r.list.map((p) => [p.query ? TRUE : FALSE, p.types.length, ...p.types]);
  const out: Atom[] = [r.min, r.max, r.list.length];
  let at = 4 + r.list.length;
  for (const e of entries) {
    out.push(at);
    at += e.length;
  }
  for (const e of entries) out.push(...e);
  return out;
}

/** The form of method `index` of `g`; CLIPS's [GENRCFUN2] when there is none. */
function method(host: GenericCommandHost, fn: string, g: string, index: number): SList | null {
  const form = host.generics.methodForm(g, index);
  if (form === undefined) {
    throw rulesRuntimeError(`generic function ${bareName(g)} has no method #${index}`, {
      clips: `[GENRCFUN2] Unable to find method ${bareName(g)} #${index} in function ${fn}.`,
      hint: "list-defmethods lists the methods with their indices.",
    });
  }
  return form;
}

/**
 * `(list-defmethods [name])`: `name #index  restrictions` a line, in precedence order; the
 * generics of the current module are separated by a blank line; no total when there is none.
 */
function listDefmethods(host: GenericCommandHost, arg: Value | undefined): Value {
  const keys =
    arg === undefined ? host.generics.keys(host.module()) : [generic(host, "list-defmethods", arg)];
  let text = "";
  let count = 0;
  keys.forEach((n, i) => {
    if (i > 0) text += "\n";
    for (const m of host.generics.describe(n) ?? []) {
      text += `${bareName(n)} ${m.text}\n`;
      count++;
    }
  });
  if (count > 0) text += `For a total of ${count} method${count === 1 ? "" : "s"}.\n`;
  host.print(text);
  return VOID;
}

/** `(undefgeneric name | *)`. */
function undefgeneric(host: GenericCommandHost, arg: Value | undefined): Value {
  if (arg === undefined || !isSymbol(arg)) {
    throw typeError("undefgeneric", 1, "symbol");
  }
  const key = host.resolve(arg);
  const all = arg === "*" && key === undefined;
  if (!all && key === undefined) {
    throw rulesRuntimeError(`unable to find defgeneric ${arg}`, {
      clips: `[PRNTUTIL1] Unable to find defgeneric ${arg}.`,
    });
  }
  for (const n of key === undefined ? host.generics.keys(host.module()) : [key]) {
    // `(undefgeneric *)` deletes those only code holds, as CLIPS 6.30 does.
    if (host.generics.running(n) || host.calledNow(n) || (!all && host.heldByCode(n))) {
      host.print(`[PRNTUTIL4] Unable to delete defgeneric ${bareName(n)}.\n`);
    } else host.forgetGeneric(n);
  }
  return VOID;
}

/**
 * `(undefmethod name index | *)`, checked in CLIPS's order (UndefmethodCommand): the name (`*`
 * for every generic), then the index (`*` for every method); a running generic is not changed.
 */
function undefmethod(host: GenericCommandHost, args: readonly Value[]): Value {
  const [typed, index] = args;
  if (typed === undefined || !isSymbol(typed)) {
    throw typeError("undefmethod", 1, "symbol");
  }
  const found = host.resolve(typed);
  const all = typed === "*" && found === undefined;
  if (!all && found === undefined) {
    throw rulesRuntimeError(`no generic function ${typed}`, {
      clips: `[GENRCCOM1] No such generic function ${typed} in function undefmethod.`,
    });
  }
  const name = found ?? typed;
  const every = index === "*";
  if (!every && (index === undefined || !isInteger(index) || Number(index) === 0)) {
    throw rulesRuntimeError("undefmethod expects a method index or *", {
      clips: "[GENRCCOM2] Expected a valid method index in function undefmethod.",
    });
  }
  if (all) {
    if (!every) {
      throw rulesRuntimeError("undefmethod * takes * for the methods", {
        clips: "[GENRCCOM3] Incomplete method specification for deletion.",
      });
    }
    for (const g of host.generics.keys()) {
      if (!host.generics.running(g)) forgetExplicit(host, g);
    }
    return VOID;
  }
  if (host.generics.running(name)) {
    // CLIPS prints this and goes on: the caller is not halted.
    host.print(
      `[GENRCFUN1] Defgeneric ${typed} cannot be modified while one of its methods is executing.\n`,
    );
    return VOID;
  }
  if (every) {
    forgetExplicit(host, name);
    return VOID;
  }
  method(host, "undefmethod", name, Number(index));
  host.generics.forgetMethod(name, Number(index));
  return VOID;
}

/** Deletes a generic's methods but its implicit system one (`#SYS1`). */
function forgetExplicit(host: GenericCommandHost, name: string): void {
  for (const m of host.generics.describe(name) ?? []) {
    if (!m.text.startsWith("#SYS")) host.generics.forgetMethod(name, m.index);
  }
}

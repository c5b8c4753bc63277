/**
 * CLIPS's construct-introspection commands: `ppdefrule` and the other `pp…` commands (the
 * construct's text as CLIPS's pretty-printer wrote it), the `list-def…` listings and `rules`,
 * and the `get-def…-list` functions, with CLIPS 6.30's output and messages.
 *
 * @example
 * // (defrule r (a) =>) then (ppdefrule r) prints "(defrule MAIN::r\n   (a)\n   =>)\n"
 */
import { type ConstructKind, type ConstructTexts, splitName } from "./construct-texts.js";
import { rulesRuntimeError } from "./errors.js";
import { FALSE, formatValue, isSymbol, type Value, VOID } from "./values.js";

/** What the commands read from the engine. */
export interface IntrospectionHost {
  readonly texts: ConstructTexts;
  /** The current module. */
  module(): string;
  /** Every module, in definition order. */
  modules(): string[];
  print(text: string): void;
  /** Every class, or `module`'s, the system classes first (they belong to MAIN). */
  classes(module?: string): string[];
  /** Whether MAIN still has the built-in initial-fact deffacts (`undeffacts` deletes it). */
  initialFacts(): boolean;
  /** Whether MAIN still has the built-in initial-object definstances (`undefinstances`). */
  initialObject(): boolean;
  /** Whether MAIN still has the built-in initial-fact deftemplate (`undeftemplate` deletes it). */
  initialTemplate(): boolean;
  /** The current value of `module`'s global `name` (`show-defglobals`). */
  globalValue(name: string, module: string): Value;
}

const PP: Record<string, ConstructKind> = {
  ppdefrule: "defrule",
  ppdeftemplate: "deftemplate",
  ppdeffacts: "deffacts",
  ppdeffunction: "deffunction",
  ppdefglobal: "defglobal",
  ppdefmodule: "defmodule",
  ppdefclass: "defclass",
  ppdefinstances: "definstances",
};

const LIST: Record<string, ConstructKind> = {
  "list-defrules": "defrule",
  rules: "defrule",
  "list-deftemplates": "deftemplate",
  "list-deffacts": "deffacts",
  "list-deffunctions": "deffunction",
  "list-defglobals": "defglobal",
  "list-defclasses": "defclass",
  "list-definstances": "definstances",
};

const GET_LIST: Record<string, ConstructKind> = {
  "get-defrule-list": "defrule",
  "get-deftemplate-list": "deftemplate",
  "get-deffacts-list": "deffacts",
  "get-deffunction-list": "deffunction",
  "get-defglobal-list": "defglobal",
  "get-defclass-list": "defclass",
  "get-definstances-list": "definstances",
};

/** `(deftemplate-module name)` and the other `def…-module` functions: the construct's module. */
const MODULE_OF: Record<string, ConstructKind> = {
  "defrule-module": "defrule",
  "deftemplate-module": "deftemplate",
  "deffacts-module": "deffacts",
  "deffunction-module": "deffunction",
  "defglobal-module": "defglobal",
  "defgeneric-module": "defgeneric",
  "defclass-module": "defclass",
  "definstances-module": "definstances",
};

/** The `def…-module` functions' names. */
export const MODULE_OF_FUNCTIONS: readonly string[] = Object.keys(MODULE_OF);

/** The introspection commands' names. */
export const INTROSPECTION_COMMANDS: ReadonlySet<string> = new Set([
  ...Object.keys(PP),
  ...Object.keys(LIST),
  ...Object.keys(GET_LIST),
  ...Object.keys(MODULE_OF),
  "list-defmodules",
  "get-defmodule-list",
  "show-defglobals",
]);

/**
 * The message-handler introspection functions' names (run by introspect-handlers.ts, which needs
 * the object system; the evaluator only needs the names).
 */
export const HANDLER_COMMANDS: ReadonlySet<string> = new Set([
  "list-defmessage-handlers",
  "get-defmessage-handler-list",
  "ppdefmessage-handler",
  "message-handler-existp",
]);

/** Runs one introspection command; null when `name` is not one. */
export function introspectionCommand(
  host: IntrospectionHost,
  name: string,
  args: readonly Value[],
): Value | null {
  const pp = PP[name];
  if (pp) return prettyPrint(host, name, pp, args[0]);
  const list = LIST[name];
  if (list) {
    const modules = moduleArgument(host, name, args[0]);
    if (modules) host.print(listing(host, list, modules));
    return VOID;
  }
  const get = GET_LIST[name];
  if (get) {
    const modules = moduleArgument(host, name, args[0]);
    if (!modules) return VOID;
    // `*` names every construct with its module, even with MAIN the only module.
    const qualify = args[0] === "*";
    return modules.flatMap((m) => names(host, get, m).map((n) => (qualify ? `${m}::${n}` : n)));
  }
  const moduleOf = MODULE_OF[name];
  if (moduleOf) return constructModule(host, name, moduleOf, args[0]);
  if (name === "list-defmodules") {
    host.print(total(host.modules(), "defmodule"));
    return VOID;
  }
  if (name === "get-defmodule-list") return host.modules();
  if (name === "show-defglobals") {
    const modules = moduleArgument(host, name, args[0]);
    if (modules) host.print(showGlobals(host, modules, args[0] === "*"));
    return VOID;
  }
  return null;
}

/**
 * The module a construct belongs to (a `MOD::` prefix ignored), or FALSE after CLIPS's message.
 * The built-in initial-fact deftemplate and deffacts are seen from MAIN only (MAIN exports
 * nothing); the system classes from every module.
 */
function constructModule(
  host: IntrospectionHost,
  fn: string,
  kind: ConstructKind,
  arg: Value | undefined,
): Value {
  if (arg === undefined || !isSymbol(arg)) {
    host.print(`[ARGACCES5] Function ${fn} expected argument #1 to be of type symbol\n`);
    return FALSE;
  }
  const [, name] = splitName(arg, host.module());
  const found =
    kind === "defclass"
      ? host.classes().includes(name)
        ? (host.texts.moduleOf(kind, name) ?? "MAIN")
        : undefined
      : builtIn(host, kind) === name
        ? host.module() === "MAIN"
          ? "MAIN"
          : undefined
        : host.texts.moduleOf(kind, arg, host.module());
  if (found === undefined) {
    host.print(`[PRNTUTIL1] Unable to find ${kind} ${name}.\n`);
    return FALSE;
  }
  return found;
}

/**
 * `(show-defglobals [module | *])`: `?*x* = value` a line; with `*` every module gets a
 * `NAME:` header and its globals indented, even when MAIN is the only module (CLIPS 6.30).
 */
function showGlobals(host: IntrospectionHost, modules: string[], headed: boolean): string {
  let text = "";
  for (const m of modules) {
    if (headed) text += `${m}:\n`;
    for (const g of host.texts.names("defglobal", m)) {
      text += `${headed ? "   " : ""}?*${g}* = ${formatValue(host.globalValue(g, m))}\n`;
    }
  }
  return text;
}

/** The names of `kind` in `module`, the built-in initial-fact deftemplate and deffacts first. */
function names(host: IntrospectionHost, kind: ConstructKind, module: string): string[] {
  if (kind === "defclass") return host.classes(module);
  const own = host.texts.names(kind, module);
  if (module !== "MAIN") return own;
  const first = builtIn(host, kind);
  return first ? [first, ...own.filter((n) => n !== first)] : own;
}

/** The built-in construct of `kind` there is (none once the initial-fact deffacts is deleted). */
function builtIn(host: IntrospectionHost, kind: ConstructKind): string | undefined {
  if (kind === "deffacts" && !host.initialFacts()) return undefined;
  if (kind === "deftemplate" && !host.initialTemplate()) return undefined;
  return kind === "definstances" && !host.initialObject() ? undefined : BUILT_IN[kind];
}

/** The constructs CLIPS 6.30 defines itself, listed first in MAIN and kept without text. */
const BUILT_IN: Partial<Record<ConstructKind, string>> = {
  deftemplate: "initial-fact",
  deffacts: "initial-fact",
  definstances: "initial-object",
};

/** `(list-… [module | *])`: the modules to list, null after CLIPS's message for a bad one. */
export function moduleArgument(
  host: Pick<IntrospectionHost, "module" | "modules">,
  fn: string,
  arg: Value | undefined,
): string[] | null {
  if (arg === undefined) return [host.module()];
  if (typeof arg !== "string") {
    throw rulesRuntimeError(`${fn} expects a module name`, {
      clips: `[ARGACCES5] Function ${fn} expected argument #1 to be of type symbol`,
    });
  }
  if (arg === "*") return host.modules();
  if (!host.modules().includes(arg)) {
    throw rulesRuntimeError(`${fn}: no module ${arg}`, {
      clips: `[ARGACCES5] Function ${fn} expected argument #1 to be of type defmodule name`,
    });
  }
  return [arg];
}

function listing(host: IntrospectionHost, kind: ConstructKind, modules: string[]): string {
  return moduleListing(kind, modules, (m) => names(host, kind, m));
}

/**
 * A `list-def…` command's text: one module's names and their total, or with several (`*`) each
 * module's under `NAME:` and one total.
 */
export function moduleListing(
  kind: string,
  modules: readonly string[],
  namesOf: (module: string) => readonly string[],
): string {
  if (modules.length === 1) {
    const only = modules[0] as string;
    return total(namesOf(only), kind);
  }
  let text = "";
  let count = 0;
  for (const m of modules) {
    const these = namesOf(m);
    text += `${m}:\n${these.map((n) => `   ${n}\n`).join("")}`;
    count += these.length;
  }
  return `${text}For a total of ${count} ${plural(kind, count)}.\n`;
}

/** Names one a line and the total; nothing at all for none, as CLIPS. */
function total(list: readonly string[], kind: string): string {
  if (list.length === 0) return "";
  return `${list.map((n) => `${n}\n`).join("")}For a total of ${list.length} ${plural(kind, list.length)}.\n`;
}

function plural(kind: string, n: number): string {
  if (n === 1 || kind === "deffacts" || kind === "definstances") return kind;
  return kind === "defclass" ? "defclasses" : `${kind}s`;
}

function prettyPrint(
  host: IntrospectionHost,
  fn: string,
  kind: ConstructKind,
  arg: Value | undefined,
): Value {
  if (typeof arg !== "string") {
    throw rulesRuntimeError(`${fn} expects a ${kind} name`, {
      // ppdefglobal names what it wants; the others ask for a symbol.
      clips: `[ARGACCES5] Function ${fn} expected argument #1 to be of type ${kind === "defglobal" ? "defglobal name" : "symbol"}`,
    });
  }
  // MAIN and the built-in initial-fact constructs exist but CLIPS keeps no text for them.
  if (kind === "defmodule" ? arg === "MAIN" : arg === builtIn(host, kind)) return VOID;
  // The system classes have no text either.
  if (kind === "defclass" && !host.texts.has(kind, arg) && host.classes().includes(arg)) {
    return VOID;
  }
  // A bare name is looked for in the current module (and what it imports, for the kinds
  // modules import).
  const [module, name] =
    kind === "defmodule"
      ? ["", arg]
      : splitName(
          arg,
          arg.includes("::") ? host.module() : host.texts.scopeOf(kind, arg, host.module()),
        );
  const id = kind === "defmodule" ? arg : `${module}::${name}`;
  if (!host.texts.has(kind, id)) {
    throw rulesRuntimeError(`unable to find ${kind} ${formatValue(arg)}`, {
      clips: `[PRNTUTIL1] Unable to find ${kind} ${arg}.`,
    });
  }
  const text = host.texts.pretty(kind, id);
  if (text !== null) host.print(text);
  return VOID;
}

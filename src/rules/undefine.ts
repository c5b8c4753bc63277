/**
 * `undeffunction`, `undefglobal`, `undeffacts` and `undeftemplate` as CLIPS 6.30's
 * UndefconstructCommand (cstrccom.c): one symbol argument, `*` for every construct of the kind in
 * the current module (unless one is named `*`: CLIPS looks the name up first); a name not found
 * is `[PRNTUTIL1]`; a construct still in use (called or read by another construct, matched by a
 * rule, holding facts, or running) stays and is `[PRNTUTIL4]`.
 */
import type { ConstructKind, ConstructTexts } from "./construct-texts.js";
import { splitName } from "./construct-texts.js";
import { rulesRuntimeError } from "./errors.js";
import type { SList, SNode } from "./reader.js";
import type { Value } from "./values.js";

/** The undef commands this file serves, with the construct kind each deletes. */
export const UNDEFINE_COMMANDS: ReadonlyMap<string, ConstructKind> = new Map([
  ["undeffunction", "deffunction"],
  ["undefglobal", "defglobal"],
  ["undeffacts", "deffacts"],
  ["undeftemplate", "deftemplate"],
]);

/** What the engine gives the command. */
export interface UndefineHost {
  readonly texts: ConstructTexts;
  /** The current module (`*` deletes in it only). */
  module(): string;
  /** Whether the construct is busy now: a deffunction in its body, a deftemplate with facts. */
  busy(kind: ConstructKind, name: string, module: string): boolean;
  /** Whether a call of deffunction `module::name` is running (not only a command calling it). */
  executing(name: string, module: string): boolean;
  /** Empties a deffunction and drops its text, keeping it listed (CLIPS's partial deletion). */
  hollow(name: string, module: string): void;
  /** Deletes the construct `module::name` from the engine (its text too). */
  remove(kind: ConstructKind, name: string, module: string): void;
  print(text: string): void;
  /** Whether MAIN still has the built-in initial-fact deffacts. */
  initialFacts(): boolean;
  /** Deletes the built-in initial-fact deffacts: `(reset)` then asserts no `(initial-fact)`. */
  dropInitialFacts(): void;
  /** Whether MAIN still has the built-in initial-fact deftemplate. */
  initialTemplate(): boolean;
  /** Deletes the built-in initial-fact deftemplate. */
  dropInitialTemplate(): void;
}

const INITIAL = "initial-fact";

/** Runs `(undef… name)`; the argument count is checked where the call is parsed. */
export function undefine(command: string, args: readonly Value[], host: UndefineHost): void {
  const kind = UNDEFINE_COMMANDS.get(command);
  if (kind === undefined) return;
  const target = args[0];
  if (typeof target !== "string") {
    throw rulesRuntimeError(`${command} expects a ${kind} name`, {
      clips: `[ARGACCES5] Function ${command} expected argument #1 to be of type symbol`,
    });
  }
  const [module, name] = splitName(target, host.module());
  // The built-in initial-fact deffacts and deftemplate have no text but can be deleted too.
  const builtIn = module === "MAIN" && hasBuiltIn(kind, host);
  if (builtIn && name === INITIAL) {
    if (builtInBusy(kind, host)) host.print(`[PRNTUTIL4] Unable to delete ${kind} ${INITIAL}.\n`);
    else dropBuiltIn(kind, host);
    return;
  }
  const found = host.texts.has(kind, `${module}::${name}`);
  if (!found && target !== "*") {
    throw rulesRuntimeError(`unable to find ${kind} ${target}`, {
      clips: `[PRNTUTIL1] Unable to find ${kind} ${target}.`,
      hint: `list-${kind}s lists the ${kind}s there are.`,
    });
  }
  const from = found ? module : host.module();
  const names = found ? [name] : host.texts.names(kind, from);
  if (!found && from === "MAIN" && hasBuiltIn(kind, host)) {
    if (builtInBusy(kind, host)) host.print(`[PRNTUTIL4] Unable to delete ${kind} ${INITIAL}.\n`);
    else dropBuiltIn(kind, host);
  }
  if (!found && kind === "deffunction") {
    undefineAllFunctions(names, from, host);
    return;
  }
  const kept: string[] = [];
  for (const n of names) {
    if (host.busy(kind, n, from) || referenced(host.texts, kind, n, !found)) {
      // CLIPS reports each one it keeps and goes on with the others.
      // CLIPS names it as it was typed (`MOD::name` stays qualified).
      host.print(`[PRNTUTIL4] Unable to delete ${kind} ${found ? target : n}.\n`);
      kept.push(n);
    }
  }
  for (const n of names) if (!kept.includes(n)) host.remove(kind, n, from);
}

/**
 * `(undeffunction *)` as CLIPS's RemoveAllDeffunctions: a running one stays ([PRNTUTIL4]); the
 * others lose their bodies, so calls among them no longer count; one still called by another
 * construct, a running deffunction or the command is then kept empty, without its text
 * ([DFFNXFUN1]); the rest go.
 */
function undefineAllFunctions(names: readonly string[], from: string, host: UndefineHost): void {
  const running = names.filter((n) => host.executing(n, from));
  for (const n of running) host.print(`[PRNTUTIL4] Unable to delete deffunction ${n}.\n`);
  for (const n of names) {
    if (running.includes(n)) continue;
    const used =
      host.busy("deffunction", n, from) ||
      referenced(host.texts, "deffunction", n, true) ||
      running.some((k) => callsFunction(host.texts, k, n));
    if (!used) {
      host.remove("deffunction", n, from);
      continue;
    }
    host.print(
      `[DFFNXFUN1] WARNING: Deffunction ${n} only partially deleted due to usage by other constructs.\n`,
    );
    host.hollow(n, from);
  }
}

function hasBuiltIn(kind: ConstructKind, host: UndefineHost): boolean {
  if (kind === "deffacts") return host.initialFacts();
  return kind === "deftemplate" && host.initialTemplate();
}

/** The initial-fact deftemplate is in use while its deffacts or an (initial-fact) fact is. */
function builtInBusy(kind: ConstructKind, host: UndefineHost): boolean {
  return kind === "deftemplate" && (host.initialFacts() || host.busy(kind, INITIAL, "MAIN"));
}

function dropBuiltIn(kind: ConstructKind, host: UndefineHost): void {
  if (kind === "deffacts") host.dropInitialFacts();
  else host.dropInitialTemplate();
}

/** Whether the deffunction `caller`'s body calls `callee`. */
function callsFunction(texts: ConstructTexts, caller: string, callee: string): boolean {
  for (const e of texts.entries()) {
    if (e.kind !== "deffunction" || e.name !== caller) continue;
    return e.form.items.slice(2).some((n) => mentions(n, "deffunction", callee));
  }
  return false;
}

/** Whether another construct calls the deffunction or reads the global. */
function referenced(
  texts: ConstructTexts,
  kind: ConstructKind,
  name: string,
  all: boolean,
): boolean {
  if (kind === "deffacts") return false;
  if (kind === "deftemplate") return templateInUse(texts, name);
  const calls = (node: SNode): boolean => mentions(node, kind, name);
  for (const e of texts.entries()) {
    if (e.kind === kind && e.name === name) continue;
    const items = e.form.items;
    // A defglobal's value expression holds nothing in use (CLIPS evaluates it at reset), and
    // `*` deletes the deffunctions calling each other together.
    if (e.kind === "defglobal" || (all && e.kind === kind)) continue;
    if (e.kind === "defrule" || e.kind === "deffacts") {
      const arrow = items.findIndex((n) => n.type === "atom" && n.text === "=>");
      const lhs = arrow < 0 ? items : items.slice(0, arrow);
      if (lhs.some((n) => n.type === "list" && inPattern(n, calls))) return true;
      if (arrow >= 0 && items.slice(arrow + 1).some(calls)) return true;
    } else if (items.some(calls)) {
      return true;
    }
  }
  return false;
}

/**
 * Whether a rule's, deffunction's, deffacts', definstances' or defclass's code calls the
 * function `name` (a generic function's methods and message-handlers are not in `texts`).
 */
export function calledByConstructs(texts: ConstructTexts, name: string): boolean {
  return referenced(texts, "deffunction", name, false);
}

const CE_HEADS = new Set(["and", "or", "not", "exists", "forall", "logical"]);

/** Whether a rule matches the deftemplate, or a deffacts or an `assert` anywhere makes one. */
export function templateInUse(texts: ConstructTexts, name: string): boolean {
  const isFact = (n: SNode): boolean => n.type === "list" && headIs(n, name);
  const asserts = (n: SNode): boolean =>
    n.type === "list" &&
    ((headIs(n, "assert") && n.items.slice(1).some(isFact)) || n.items.some(asserts));
  for (const e of texts.entries()) {
    const items = e.form.items;
    if (e.kind === "deftemplate") continue;
    if (e.kind === "deffacts" && items.slice(2).some(isFact)) return true;
    if (e.kind === "defrule") {
      const arrow = items.findIndex((n) => n.type === "atom" && n.text === "=>");
      const lhs = arrow < 0 ? items : items.slice(2, arrow);
      if (lhs.some((n) => matchesTemplate(n, name))) return true;
    }
    if (items.some(asserts)) return true;
  }
  return false;
}

/** Whether a conditional element (or one inside it) is a pattern on the deftemplate. */
function matchesTemplate(ce: SNode, name: string): boolean {
  if (ce.type === "atom") return false;
  const head = ce.items[0];
  if (head?.type === "atom" && CE_HEADS.has(head.text)) {
    return ce.items.slice(1).some((n) => matchesTemplate(n, name));
  }
  return headIs(ce, name);
}

function headIs(list: SList, text: string): boolean {
  const head = list.items[0];
  return head?.type === "atom" && head.kind === "symbol" && head.text === text;
}

/** A pattern's (or fact's) own head is a relation, not a call: only what is inside counts. */
function inPattern(ce: SNode, calls: (node: SNode) => boolean): boolean {
  if (ce.type === "atom") return calls(ce);
  const head = ce.items[0];
  if (head?.type === "atom" && head.text === "test") return ce.items.slice(1).some(calls);
  if (head?.type === "atom" && CE_HEADS.has(head.text)) {
    return ce.items.slice(1).some((n) => inPattern(n, calls));
  }
  return ce.items.slice(1).some(calls);
}

function mentions(node: SNode, kind: ConstructKind, name: string): boolean {
  if (node.type === "atom") {
    return kind === "defglobal" && node.kind === "gvar" && node.text === name;
  }
  const head = node.items[0];
  if (kind === "deffunction" && head?.type === "atom" && head.text === name) return true;
  return node.items.some((n) => mentions(n, kind, name));
}

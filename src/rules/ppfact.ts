/**
 * `(ppfact fact [logical-name [ignore-defaults]])`: a fact as CLIPS 6.30 pretty-prints it. An
 * ordered fact prints as `(facts)` shows it; a template fact puts each slot on its own line,
 * and with ignore-defaults (anything but FALSE) leaves out the slots holding their static
 * default (a dynamic default is never left out, as in CLIPS).
 *
 * @example
 * // (deftemplate p (slot a) (slot b (default 3))) (assert (p (a 1)))
 * // (ppfact 1 t TRUE) prints "(p \n   (a 1))\n"
 */
import type { SlotDef, Template } from "./ast.js";
import { rulesRuntimeError } from "./errors.js";
import type { Fact } from "./facts.js";
import { logicalName } from "./logical-names.js";
import { isRouterName, unknownRouterMessage } from "./routers.js";
import {
  FALSE,
  formatFields,
  formatValue,
  isFactRef,
  isMultifield,
  isSymbol,
  type Value,
  VOID,
  valuesEqual,
} from "./values.js";

/** What ppfact reads from the engine. */
export interface PpfactHost {
  /** The live fact with index `id`, if any. */
  fact(id: number): Fact | undefined;
  /** A slot's default value (static or derived: the caller never asks for a dynamic one). */
  defaultOf(template: Template, slot: SlotDef): Value;
  /** Prints to standard output. */
  print(text: string): void;
}

/** Runs `(ppfact …)` (arity is checked by the caller). */
export function ppfact(host: PpfactHost, args: readonly Value[]): Value {
  const fact = factOf(host, args[0] as Value);
  const router = args[1] === undefined ? "t" : logicalName("ppfact", args[1]);
  if (!isRouterName(router)) {
    host.print(`${unknownRouterMessage(router)}\n`);
    return VOID;
  }
  if (router === "nil" || router === "stdin") return VOID;
  const ignoreDefaults = args[2] !== undefined && args[2] !== FALSE;
  host.print(`${factText(host, fact, ignoreDefaults)}\n`);
  return VOID;
}

function factOf(host: PpfactHost, arg: Value): Fact {
  if (isFactRef(arg)) {
    const fact = host.fact(arg.factId);
    if (fact) return fact;
  } else if (typeof arg === "number" && arg >= 0) {
    const fact = host.fact(arg);
    if (fact) return fact;
    throw rulesRuntimeError(`unable to find fact f-${arg}`, {
      clips: `[PRNTUTIL1] Unable to find fact f-${arg}.`,
    });
  }
  // CLIPS names the types it takes differently for a symbol or negative index and the rest.
  const types =
    isSymbol(arg) || typeof arg === "number" || isFactRef(arg)
      ? "fact-address or fact-index"
      : "fact-address, integer, or symbol";
  throw rulesRuntimeError("ppfact expects a fact", {
    clips: `[ARGACCES5] Function ppfact expected argument #1 to be of type ${types}`,
  });
}

function factText(host: PpfactHost, fact: Fact, ignoreDefaults: boolean): string {
  const template = fact.template;
  if (template === null) return fact.toString();
  let text = `(${fact.relation}`;
  template.slots.forEach((slot, i) => {
    const v = fact.values[i] as Value;
    if (ignoreDefaults && isDefault(host, template, slot, v)) return;
    const shown = isMultifield(v)
      ? v.length
        ? `(${slot.name} ${formatFields(v)})`
        : `(${slot.name})`
      : `(${slot.name} ${formatValue(v)})`;
    text += ` \n   ${shown}`;
  });
  return `${text})`;
}

function isDefault(host: PpfactHost, template: Template, slot: SlotDef, v: Value): boolean {
  if (slot.default.kind === "dynamic" || slot.default.kind === "none") return false;
  return valuesEqual(host.defaultOf(template, slot), v);
}

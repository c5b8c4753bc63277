/** Argument checks the COOL introspection functions share. */
import { rulesRuntimeError } from "./errors.js";
import { typeError } from "./function-args.js";
import { isSymbol, type Value } from "./values.js";

/**
 * The optional `inherit` keyword at argument `index` (1-based) of `fn`: absent is false, a
 * value that is no symbol [ARGACCES5], another symbol CLIPS's syntax error (slot-existp names
 * the keyword instead).
 */
export function inheritFlag(fn: string, args: readonly Value[], index: number): boolean {
  const v = args[index - 1];
  if (v === undefined) return false;
  if (!isSymbol(v)) throw typeError(fn, index, "symbol");
  if (v === "inherit") return true;
  if (fn === "slot-existp" || fn === "instances") throw typeError(fn, index, 'keyword "inherit"');
  throw rulesRuntimeError(`${fn} takes only the keyword inherit here, not ${v}`, {
    clips: `[PRNTUTIL2] Syntax Error:  Check appropriate syntax for ${fn}.`,
  });
}

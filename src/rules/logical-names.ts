/**
 * A logical name argument read as CLIPS's GetLogicalName reads it: a symbol, string or instance
 * name gives its text, a number its printed form; anything else (a multifield, an address) is
 * CLIPS's `[IOFUN1] Illegal logical name used for <fn> function.`
 *
 * @example
 * logicalName("printout", sym("t")); // "t"
 * logicalName("close", []); // throws [IOFUN1]
 */
import { rulesRuntimeError } from "./errors.js";
import {
  formatValue,
  isFloat,
  isInstanceName,
  isInteger,
  isString,
  isSymbol,
  type Value,
} from "./values.js";

/** The logical name `v` gives to function `fn`. */
export function logicalName(fn: string, v: Value): string {
  if (isSymbol(v)) return v;
  if (isString(v)) return v.value;
  if (isInstanceName(v)) return v.name;
  if (isInteger(v) || isFloat(v)) return formatValue(v);
  throw rulesRuntimeError(`${fn}: ${formatValue(v)} is not a logical name`, {
    clips: `[IOFUN1] Illegal logical name used for ${fn} function.`,
    hint: "A logical name is a symbol, string, instance name or number.",
  });
}

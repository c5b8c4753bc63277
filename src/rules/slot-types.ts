/** A slot's `(type …)` names checked against a value: one reading for asserts and defaults. */
import {
  isFloat,
  isInstanceName,
  isInstanceRef,
  isInteger,
  isString,
  isSymbol,
  type Value,
} from "./values.js";

/**
 * True when `v` is of one of the CLIPS type names in `types`.
 *
 * @example
 * typeOk(7, ["NUMBER"]) // true
 */
export function typeOk(v: Value, types: readonly string[]): boolean {
  for (const t of types) {
    if (t === "SYMBOL" && isSymbol(v)) return true;
    if (t === "STRING" && isString(v)) return true;
    if (t === "LEXEME" && (isSymbol(v) || isString(v))) return true;
    if (t === "INTEGER" && isInteger(v)) return true;
    if (t === "FLOAT" && isFloat(v)) return true;
    if (t === "NUMBER" && (isInteger(v) || isFloat(v))) return true;
    if (t === "FACT-ADDRESS" && typeof v === "object" && v !== null && "factId" in v) return true;
    if ((t === "INSTANCE-NAME" || t === "INSTANCE") && isInstanceName(v)) return true;
    if ((t === "INSTANCE-ADDRESS" || t === "INSTANCE") && isInstanceRef(v)) return true;
  }
  return false;
}

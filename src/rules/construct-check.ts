/**
 * What the COOL construct checks (parse-defclass-check.ts, parse-definstances-check.ts,
 * parse-handler-head.ts) share: CLIPS's syntax-error message, a token as CLIPS's pretty-print
 * buffer holds it, and the error carrying the echo CLIPS prints.
 */
import { rulesParseError } from "./errors.js";
import { tokenText } from "./pp-reader.js";
import { describe, type SNode } from "./reader.js";

/** `[PRNTUTIL2] Syntax Error:  Check appropriate syntax for WHAT.` */
export const syntaxError = (what: string): string =>
  `[PRNTUTIL2] Syntax Error:  Check appropriate syntax for ${what}.`;

/** A token as CLIPS echoes it once read: `(` for a list, `)` where the list ended. */
export function echoToken(n: SNode | undefined): string {
  if (n === undefined) return ")";
  return n.type === "list" ? "(" : tokenText(n);
}

/** Throws the construct's error at `at` with CLIPS's message and its `ERROR:` echo text. */
export function failWithEcho(construct: string, at: SNode, clips: string, echoText: string): never {
  const error = rulesParseError(at.pos, `a valid ${construct}`, describe(at), { construct, clips });
  Object.assign(error.details, { echoText });
  throw error;
}

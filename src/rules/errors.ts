import { KeelError } from "../core/index.js";
import type { SourcePos } from "./source-pos.js";

/**
 * A parse error with position, what was expected, what was found, and a hint.
 * The message reads: `line 3, column 7: expected ')' but found end of input. <hint>`.
 */
export function rulesParseError(
  pos: SourcePos | undefined,
  expected: string,
  found: string,
  extra: {
    hint?: string;
    construct?: string;
    clips?: string;
    echoThrough?: boolean;
    echoOpen?: boolean;
    echoAfter?: string;
  } = {},
): KeelError {
  const where = pos ? `line ${pos.line}, column ${pos.column}: ` : "";
  const inside = extra.construct ? ` (in ${extra.construct})` : "";
  return new KeelError("RULES_PARSE", `${where}expected ${expected} but found ${found}${inside}.`, {
    details: {
      line: pos?.line,
      column: pos?.column,
      expected,
      found,
      construct: extra.construct,
      // What CLIPS prints for it, when Keel knows.
      ...(extra.clips !== undefined ? { clips: extra.clips } : {}),
      // CLIPS's ERROR: echo runs through the token at pos (through its `)` for a list).
      ...(extra.echoThrough ? { echoThrough: true } : {}),
      // CLIPS's echo stops at the `(` opening the list at pos (a list where a constant belongs).
      ...(extra.echoOpen ? { echoOpen: true } : {}),
      // What CLIPS had written after that token when it stopped (a space, ` )`).
      ...(extra.echoAfter !== undefined ? { echoAfter: extra.echoAfter } : {}),
    },
    hint: extra.hint ?? "Check the syntax against docs/rules.md.",
  });
}

/** A semantic error found while loading a construct (unknown function, bad slot, unbound variable). */
export function rulesLoadError(
  pos: SourcePos | undefined,
  message: string,
  extra: {
    hint?: string;
    construct?: string;
    clips?: string;
    echoWhole?: boolean;
    echoThrough?: boolean;
    echoOpen?: boolean;
    echoAfter?: string;
  } = {},
): KeelError {
  const where = pos ? `line ${pos.line}, column ${pos.column}: ` : "";
  const inside = extra.construct ? ` (in ${extra.construct})` : "";
  return new KeelError("RULES_PARSE", `${where}${message}${inside}.`, {
    details: {
      line: pos?.line,
      column: pos?.column,
      construct: extra.construct,
      clips: extra.clips,
      // CLIPS found the error once the whole construct was read: its ERROR: echo is all of it.
      ...(extra.echoWhole ? { echoWhole: true } : {}),
      ...(extra.echoThrough ? { echoThrough: true } : {}),
      ...(extra.echoOpen ? { echoOpen: true } : {}),
      ...(extra.echoAfter !== undefined ? { echoAfter: extra.echoAfter } : {}),
    },
    ...(extra.hint ? { hint: extra.hint } : {}),
  });
}

/** An error while evaluating: a predicate in a pattern or an action on the right-hand side. */
export function rulesRuntimeError(
  message: string,
  extra: { rule?: string; pattern?: number; hint?: string; clips?: string } = {},
): KeelError {
  const where =
    extra.rule !== undefined
      ? ` (rule ${extra.rule}${extra.pattern !== undefined ? `, pattern #${extra.pattern}` : ""})`
      : "";
  return new KeelError("RULES_RUNTIME", `${message}${where}.`, {
    details: { rule: extra.rule, pattern: extra.pattern, clips: extra.clips },
    ...(extra.hint ? { hint: extra.hint } : {}),
  });
}

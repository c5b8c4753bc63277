/**
 * How CLIPS 6.30 prints an error message it carries on after. CLIPS's `PrintErrorID` starts some
 * messages on a fresh line (its `printCR` argument): the IDs below, taken from CLIPS's sources,
 * print a blank line first; every other ID prints directly after what came before.
 */
import { isKeelError, type KeelError } from "../core/index.js";
import { rulesRuntimeError } from "./errors.js";

const BLANK_LINE_FIRST = new Set([
  "ANALYSIS1",
  "ANALYSIS2",
  "ANALYSIS3",
  "ANALYSIS4",
  "BLOAD1",
  "CLSLTPSR3",
  "CLSLTPSR4",
  "CLSLTPSR5",
  "CLSLTPSR6",
  "CSTRCPSR1",
  "CSTRCPSR2",
  "CSTRCPSR3",
  "CSTRCPSR4",
  "CSTRNCHK1",
  "CSTRNPSR1",
  "CSTRNPSR2",
  "CSTRNPSR3",
  "CSTRNPSR4",
  "CSTRNPSR5",
  "DEFAULT1",
  "DRIVE1",
  "EXPRNPSR1",
  "EXPRNPSR2",
  "EXPRNPSR3",
  "FACTMCH1",
  "GLOBLPSR1",
  "INSMNGR11",
  "MEMORY1",
  "MEMORY2",
  "MODULDEF1",
  "MODULPSR1",
  "OBJRTBLD3",
  "OBJRTBLD4",
  "OBJRTMCH1",
  "PATTERN1",
  "PATTERN2",
  "PRCCODE3",
  "PRCDRPSR1",
  "PRCDRPSR2",
  "PRCDRPSR3",
  "PRNTUTIL10",
  "PRNTUTIL2",
  "PRNTUTIL3",
  "PRNTUTIL5",
  "PRNTUTIL6",
  "PRNTUTIL8",
  "PRNTUTIL9",
  "RULECSTR1",
  "RULECSTR2",
  "RULECSTR3",
  "RULELHS1",
  "RULELHS2",
  "RULEPSR1",
  "RULEPSR2",
  "SCANNER1",
  "TMPLTDEF2",
  "TMPLTDEF1",
  "TMPLTFUN1",
  "TMPLTFUN2",
  "TMPLTRHS1",
]);

/**
 * The text CLIPS prints for one or more messages (`[ID] text` lines; a line not starting with
 * `[` continues the message before it), each placed as `PrintErrorID` places it.
 *
 * @example
 * clipsMessageText("[EXPRNPSR3] Missing function declaration for foo.")
 * // "\n[EXPRNPSR3] Missing function declaration for foo.\n"
 */
export function clipsMessageText(messages: string): string {
  let out = "";
  for (const line of messages.split("\n")) {
    const id = /^\[([A-Z]+[0-9]+)\]/.exec(line)?.[1];
    if (id !== undefined && BLANK_LINE_FIRST.has(id)) out += "\n";
    out += `${line}\n`;
  }
  return out;
}

/**
 * Adds the line CLIPS prints when an error unwinds through a deffunction, a rule's actions or a
 * message handler: `[PRCCODE4] Execution halted during the actions of deffunction f.`. The error
 * is returned (changed in place) so a caller can rethrow it.
 */
export function haltedIn(error: unknown, what: string): unknown {
  // CLIPS ends the line with a period except after a message handler's name.
  const stop = what.startsWith("message-handler ") ? "" : ".";
  return withClipsLine(error, `[PRCCODE4] Execution halted during the actions of ${what}${stop}`);
}

/** Adds one line to the CLIPS text of an error (changed in place and returned for a rethrow). */
export function withClipsLine(error: unknown, line: string): unknown {
  if (isKeelError(error) && typeof error.details.clips === "string") {
    error.details.clips = error.details.clips === "" ? line : `${error.details.clips}\n${line}`;
  }
  return error;
}

// CLIPS's evaluation error flag, for errors it reports and goes on from: a pattern test that
// failed while an action asserted a fact (it printed its message and counted as false), or an
// unbound variable (printed, read as FALSE). CLIPS then halts the printout, deffunction or rule
// being run. One flag for the process is enough: engines run synchronously, and the batch clears
// it after each form.
let evaluationErrorPending = false;

/** Notes that a pattern test reported an error (see `takeEvaluationError`). */
export function noteEvaluationError(): void {
  evaluationErrorPending = true;
}

/** True while the flag is set (printout stops printing). */
export function evaluationErrorSeen(): boolean {
  return evaluationErrorPending;
}

/** True once after an error was reported and evaluation went on: the caller halts, as CLIPS does. */
export function takeEvaluationError(): boolean {
  if (!evaluationErrorPending) return false;
  evaluationErrorPending = false;
  return true;
}

/** The error that halts an action list after `takeEvaluationError` (its message is already printed). */
export function evaluationErrorHalt(): KeelError {
  return rulesRuntimeError("a pattern test failed to evaluate while an action ran", { clips: "" });
}

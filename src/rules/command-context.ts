/**
 * CLIPS's ReturnContext and BreakContext for a command typed at the top level: `return` is only
 * read inside a deffunction, method, handler or rule's actions, `break` only inside a loop's
 * actions (while, loop-for-count, progn$, foreach, and what those nest). Anywhere else CLIPS
 * refuses the command when it reads it ([PRCDRPSR2]) and runs nothing of it.
 *
 * @example
 * // (progn (break)) prints "[PRCDRPSR2] The break function not valid in this context."
 */
import type { Expr } from "./ast.js";
import { rulesParseError } from "./errors.js";
import type { SourcePos } from "./source-pos.js";

/** The expression kinds whose `body` is a loop's actions (a query's actions are one too). */
const LOOPS: ReadonlySet<string> = new Set(["while", "loop", "foreach", "query"]);

/** Throws CLIPS's [PRCDRPSR2] when a top-level command uses return, or break outside a loop. */
export function checkCommandContext(expr: Expr): void {
  visit(expr, false, false);
}

/**
 * The same for a deffunction's, method's or rule's actions, where return is allowed: a break
 * outside a loop is [PRCDRPSR2], echoed through its name.
 */
export function checkActionsContext(actions: readonly Expr[]): void {
  visit(actions, false, true);
}

function visit(node: unknown, inLoop: boolean, returnOk: boolean): void {
  if (Array.isArray(node)) {
    for (const n of node) visit(n, inLoop, returnOk);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const e = node as Record<string, unknown>;
  if (e.k === "call" && (e.fn === "return" || e.fn === "break")) {
    const bad = e.fn === "return" ? !returnOk : !inLoop;
    if (bad) outOfContext(e.fn, e.pos as SourcePos | undefined);
  }
  const loop = typeof e.k === "string" && LOOPS.has(e.k);
  // A function's arguments are no loop's actions (progn's are the actions it groups).
  const args = e.k === "call" && e.fn !== "progn";
  for (const [key, value] of Object.entries(e)) {
    if (key === "pos" || key === "v") continue;
    visit(value, !args && (inLoop || (loop && key === "body")), returnOk);
  }
}

function outOfContext(fn: string, pos: SourcePos | undefined): never {
  // CLIPS's two messages differ: "The break function not valid …" has no "is".
  const clips =
    fn === "return"
      ? "[PRCDRPSR2] The return function is not valid in this context."
      : "[PRCDRPSR2] The break function not valid in this context.";
  // The echo runs through the function's name, just after the call's `(`.
  const name = pos === undefined ? undefined : { ...pos, column: pos.column + 1 };
  throw rulesParseError(name, `${fn} inside a deffunction or loop`, fn, {
    clips,
    echoThrough: true,
    hint: `${fn} belongs in a deffunction, method or rule's actions${fn === "break" ? " or a loop" : ""}.`,
  });
}

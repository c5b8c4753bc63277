/**
 * The generic-function commands' names (run by generic-commands.ts, which needs the generic
 * functions; the evaluator only needs the names, and importing them from there would be a cycle).
 */
export const GENERIC_COMMANDS: ReadonlySet<string> = new Set([
  "ppdefgeneric",
  "ppdefmethod",
  "list-defgenerics",
  "list-defmethods",
  "get-defgeneric-list",
  "get-defmethod-list",
  "preview-generic",
  "undefgeneric",
  "undefmethod",
  "get-method-restrictions",
]);

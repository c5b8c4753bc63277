/**
 * The logical names CLIPS's terminal answers. No file is ever open in Keel (no-files.ts), so
 * these are all the routers there are: output to or input from any other name is CLIPS's
 * `[ROUTER1]`.
 *
 * @example
 * isRouterName("t"); // true
 * isRouterName("datefile"); // false
 */

/** The names whose output reaches standard output in the CLIPS shell. */
export const STDOUT_ROUTERS: ReadonlySet<string> = new Set([
  "t",
  "stdout",
  "wdisplay",
  "wdialog",
  "wprompt",
  "wclips",
  "werror",
  "wwarning",
  "wtrace",
]);

/** Whether a router answers `name` (stdin too, and nil, which prints nowhere). */
export function isRouterName(name: string): boolean {
  return STDOUT_ROUTERS.has(name) || name === "stdin" || name === "nil";
}

/** CLIPS's message for a logical name no router answers. */
export function unknownRouterMessage(name: string): string {
  return `[ROUTER1] Logical name ${name} was not recognized by any routers`;
}

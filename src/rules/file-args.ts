/**
 * The argument checks CLIPS's file functions make before they touch a file (iofun.c,
 * factcom.c): Keel has no file system (no-files.ts), but a call with a bad argument gets CLIPS's
 * message for that argument, not the one for a file that cannot be opened.
 *
 * @example
 * // (open 10 data "r") is "[ARGACCES5] Function open expected argument #1 to be of type symbol or string"
 */
import { rulesRuntimeError } from "./errors.js";
import { typeError } from "./function-args.js";
import { logicalName } from "./logical-names.js";
import { isRouterName } from "./routers.js";
import { isString, isSymbol, type Value } from "./values.js";

/** open's access modes. */
const MODES: ReadonlySet<string> = new Set(["r", "w", "a", "rb", "wb", "ab"]);

/** The functions whose argument #1 is a file name (CLIPS's GetFileName). */
const FILE_NAME_FIRST: ReadonlySet<string> = new Set([
  "open",
  "remove",
  "rename",
  "load-facts",
  "save-facts",
  "load-instances",
  "save-instances",
  "restore-instances",
  "bload-instances",
  "bsave-instances",
  "constructs-to-c",
]);

/**
 * A class save-instances may name: whether it is abstract, or null when it is not found in the
 * scope (`local`: defined in the current module; else visible from it).
 */
export type SaveClassLookup = (name: string, local: boolean) => { abstract: boolean } | null;

/** Throws CLIPS's message for the first bad argument of file function `name`, if any. */
export function checkFileArguments(
  name: string,
  args: readonly Value[],
  classes?: SaveClassLookup,
): void {
  const fileName = (i: number): void => {
    const v = args[i];
    if (v !== undefined && !isSymbol(v) && !isString(v)) {
      throw typeError(name, i + 1, "symbol or string");
    }
  };
  if (FILE_NAME_FIRST.has(name)) fileName(0);
  switch (name) {
    case "rename":
      fileName(1);
      return;
    case "constructs-to-c":
      // (constructs-to-c file-name id [path [max-elements]])
      if (!Number.isInteger(args[1])) throw typeError(name, 2, "integer");
      fileName(2);
      if (args[3] !== undefined && !Number.isInteger(args[3])) throw typeError(name, 4, "integer");
      return;
    case "close":
      if (args[0] !== undefined) ownName("close", args[0]);
      return;
    case "open":
      checkOpen(args);
      return;
    case "save-facts":
      checkScope(name, args[1], "symbol with value local or visible");
      return;
    case "save-instances":
    case "bsave-instances":
      // CLIPS words this check differently from save-facts' (insfile.c).
      checkScope(name, args[1], 'symbol "local" or "visible"');
      if (classes) checkClassList(name, args, classes);
      return;
    default:
      return;
  }
}

/** open's logical name (free: not a router's) and access mode. */
function checkOpen(args: readonly Value[]): void {
  const name = ownName("open", args[1] as Value);
  if (isRouterName(name) && name !== "nil") {
    throw rulesRuntimeError(`open: logical name ${name} is in use`, {
      clips: `[IOFUN2] Logical name ${name} already in use.`,
    });
  }
  const mode = args[2];
  if (mode === undefined) return;
  if (!isString(mode)) throw typeError("open", 3, "string");
  if (!MODES.has(mode.value)) {
    throw typeError("open", 3, 'string with value "r", "w", "a", "rb", "wb", or "ab"');
  }
}

/**
 * The logical name of a file: `t` names no file (CLIPS reads it as "no name given", which open
 * and close do not allow).
 */
function ownName(fn: string, v: Value): string {
  const name = logicalName(fn, v);
  if (name === "t") {
    throw rulesRuntimeError(`${fn}: t is the terminal, not a file`, {
      clips: `[IOFUN1] Illegal logical name used for ${fn} function.`,
    });
  }
  return name;
}

/** The second argument of save-facts and save-instances: the word local or visible. */
function checkScope(fn: string, scope: Value | undefined, expected: string): void {
  if (scope === undefined) return;
  if (!isSymbol(scope)) throw typeError(fn, 2, "symbol");
  if (scope !== "local" && scope !== "visible") throw typeError(fn, 2, expected);
}

/**
 * save-instances' class list after the scope (insfile.c ProcessSaveClassList): an `inherit`
 * first (with a class after it) lets abstract classes in; each must be a class in the scope.
 */
function checkClassList(fn: string, args: readonly Value[], classes: SaveClassLookup): void {
  const local = args[1] === "local";
  let from = 2;
  const inherit = args[2] === "inherit" && args.length > 3;
  if (inherit) from = 3;
  for (let i = from; i < args.length; i++) {
    const v = args[i] as Value;
    if (!isSymbol(v)) throw typeError(fn, i + 1, "symbol");
    const found = classes(v, local);
    if (found === null || (!inherit && found.abstract)) {
      throw typeError(fn, i + 1, inherit ? "valid class name" : "valid concrete class name");
    }
  }
}

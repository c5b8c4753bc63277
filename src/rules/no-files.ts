/**
 * CLIPS's file functions in an engine that has no file system (DESIGN.md: engines do no I/O).
 * Each answers as CLIPS 6.30 does when the file cannot be opened — the same message and value —
 * so a program that loads or saves a file goes on as it would in CLIPS without that file, and
 * nothing is read or written. A host passes data in through facts, `input` and host functions.
 */
import { rulesRuntimeError } from "./errors.js";
import { checkFileArguments, type SaveClassLookup } from "./file-args.js";
import { typeError } from "./function-args.js";
import { FALSE, formatValue, isString, isSymbol, str, TRUE, type Value, VOID } from "./values.js";

type Answer =
  | "argacces2"
  | "argacces2-error"
  | "argacces2-void"
  | "insfile1"
  | "argacces2-insfile1"
  | "textpro1"
  | "false"
  | "true"
  | "no-region"
  | "no-system";

const FILE_FUNCTIONS: ReadonlyMap<string, { answer: Answer; as?: string }> = new Map([
  ["load", { answer: "argacces2" }],
  ["load*", { answer: "argacces2" }],
  ["batch", { answer: "argacces2" }],
  // CLIPS names batch* as batch in its message.
  ["batch*", { answer: "argacces2", as: "batch" }],
  ["load-facts", { answer: "argacces2" }],
  ["save-facts", { answer: "argacces2" }],
  ["bsave", { answer: "argacces2" }],
  ["bload", { answer: "argacces2" }],
  ["save", { answer: "argacces2" }],
  ["dribble-on", { answer: "argacces2" }],
  ["save-instances", { answer: "argacces2-error" }],
  ["bsave-instances", { answer: "argacces2-error" }],
  // Its first file is the header, `path` + name + `.h`.
  ["constructs-to-c", { answer: "argacces2-void" }],
  ["load-instances", { answer: "insfile1" }],
  ["restore-instances", { answer: "insfile1" }],
  ["bload-instances", { answer: "argacces2-insfile1" }],
  ["fetch", { answer: "textpro1" }],
  ["open", { answer: "false" }],
  ["remove", { answer: "false" }],
  ["rename", { answer: "false" }],
  ["close", { answer: "false" }],
  // The help-file functions: fetch never loads a file, so none is found (after the checks).
  ["print-region", { answer: "no-region" }],
  ["get-region", { answer: "no-region" }],
  ["toss", { answer: "no-region" }],
  // No shell either: system answers as CLIPS built without one (the Debian build the
  // recordings come from).
  ["system", { answer: "no-system" }],
  // CLIPS 6.30's dribble-off answers TRUE even when no dribble is on.
  ["dribble-off", { answer: "true" }],
]);

/** The names of CLIPS's file functions (each answers as when its file cannot be opened). */
export const FILE_FUNCTION_NAMES: readonly string[] = [...FILE_FUNCTIONS.keys()];

/**
 * Runs a file function: prints what CLIPS prints and returns its value; null for other names.
 * `classes` finds the classes save-instances names (absent: its class list is not checked).
 */
export function fileFunction(
  name: string,
  args: readonly Value[],
  print: (text: string) => void,
  classes?: SaveClassLookup,
): Value | null {
  const spec = FILE_FUNCTIONS.get(name);
  if (!spec) return null;
  checkFileArguments(name, args, classes);
  const text = (v: Value | undefined): string =>
    v === undefined ? "" : isString(v) ? v.value : formatValue(v);
  const file = name === "constructs-to-c" ? `${text(args[2])}${text(args[0])}.h` : text(args[0]);
  const unable = `[ARGACCES2] Function ${spec.as ?? name} was unable to open file ${file}.`;
  const incomplete = `[INSFILE1] Function ${name} could not completely process file ${file}.`;
  switch (spec.answer) {
    case "argacces2":
      print(`${unable}\n`);
      return FALSE;
    case "argacces2-void":
      print(`${unable}\n`);
      return VOID;
    case "argacces2-error":
      throw rulesRuntimeError(`${name}: Keel has no file system`, { clips: unable });
    case "insfile1":
      throw rulesRuntimeError(`${name}: Keel has no file system`, { clips: incomplete });
    case "argacces2-insfile1":
      throw rulesRuntimeError(`${name}: Keel has no file system`, {
        clips: `${unable}\n${incomplete}`,
      });
    case "textpro1":
      print(`[TEXTPRO1] Could not open file "${file}".\n`);
      return FALSE;
    case "true":
      return TRUE;
    case "no-region":
      return noRegion(name, args);
    case "no-system":
      args.forEach((v, i) => {
        if (!isSymbol(v) && !isString(v)) throw typeError(name, i + 1, "symbol or string");
      });
      print("System function not fully defined for this system.\n");
      return VOID;
    default:
      return FALSE;
  }
}

/**
 * print-region, get-region and toss on a file never fetched: CLIPS's argument checks (the
 * logical name a symbol, the file a symbol or string), then FALSE, or "" for get-region.
 */
function noRegion(name: string, args: readonly Value[]): Value {
  const lexical = (v: Value | undefined): boolean =>
    v !== undefined && (isSymbol(v) || isString(v));
  let fileAt = 0;
  if (name === "print-region") {
    if (!isSymbol(args[0] as Value)) throw typeError(name, 1, "symbol");
    fileAt = 1;
  }
  if (!lexical(args[fileAt])) throw typeError(name, fileAt + 1, "symbol or string");
  return name === "get-region" ? str("") : FALSE;
}

/**
 * COOL's message-handler introspection with CLIPS 6.30's output: `list-defmessage-handlers`,
 * `get-defmessage-handler-list`, `ppdefmessage-handler` and `message-handler-existp`. A class's
 * handlers are listed in CLIPS's order (ObjectSystem.handlerList); with `inherit`, those of its
 * superclasses come first, the most general class first.
 *
 * @example
 * // (defclass A (is-a USER) (slot x)) then (list-defmessage-handlers A) prints
 * // "get-x primary in class A\nput-x primary in class A\nFor a total of 2 message-handlers.\n"
 */
import { inheritFlag } from "./cool-args.js";
import { rulesRuntimeError } from "./errors.js";
import { typeError } from "./function-args.js";
import type { ClassDef, HandlerInfo, ObjectSystem } from "./objects.js";
import { type Atom, FALSE, formatValue, isSymbol, TRUE, type Value, VOID } from "./values.js";

const TYPES = new Set(["primary", "before", "after", "around"]);

/** Runs one handler-introspection function; null when `name` is not one. */
export function handlerCommand(
  objects: ObjectSystem,
  print: (text: string) => void,
  name: string,
  args: readonly Value[],
): Value | null {
  switch (name) {
    case "list-defmessage-handlers": {
      const list = handlersOf(objects, name, args);
      if (list.length === 0) return VOID;
      const lines = list.map((h) => `${h.name} ${h.type} in class ${h.label}\n`).join("");
      const s = list.length === 1 ? "" : "s";
      print(`${lines}For a total of ${list.length} message-handler${s}.\n`);
      return VOID;
    }
    case "get-defmessage-handler-list":
      return handlersOf(objects, name, args).flatMap((h): Atom[] => [h.cls, h.name, h.type]);
    case "ppdefmessage-handler": {
      const h = findHandler(objects, name, args, true);
      if (h?.text) print(h.text);
      return VOID;
    }
    case "message-handler-existp":
      objects.namedClass(args[0] as Value, name);
      if (!isSymbol(args[1] as Value)) throw typeError(name, 2, "symbol");
      return findHandler(objects, name, args, false) ? TRUE : FALSE;
    default:
      return null;
  }
}

/** Every class's handlers (no argument), one class's, or with `inherit` its superclasses' too. */
function handlersOf(objects: ObjectSystem, fn: string, args: readonly Value[]): HandlerInfo[] {
  if (args.length === 0) return objects.classList().flatMap((c) => objects.handlerList(c));
  const cls = objects.namedClass(args[0] as Value, fn);
  const classes: ClassDef[] = inheritFlag(fn, args, 2) ? [...cls.cpl].reverse() : [cls];
  return classes.flatMap((c) => objects.handlerList(c));
}

/** `CLASS name [type]` (type primary when left out); CLIPS's message for none when `loud`. */
function findHandler(
  objects: ObjectSystem,
  fn: string,
  args: readonly Value[],
  loud: boolean,
): HandlerInfo | null {
  const clsName = args[0] as Value;
  const handler = args[1] as Value;
  const type = args[2] ?? "primary";
  if (!isSymbol(type) || !TYPES.has(type)) {
    throw rulesRuntimeError(`${fn}: ${formatValue(type)} is not a message-handler type`, {
      clips: `[MSGFUN7] Unrecognized message-handler type in ${fn}.`,
    });
  }
  if (loud && !isSymbol(clsName)) throw typeError(fn, 1, "symbol");
  const cls = isSymbol(clsName) ? objects.classNamed(clsName) : undefined;
  const found = cls
    ? objects.handlerList(cls).find((h) => h.name === handler && h.type === type)
    : undefined;
  if (found) return found;
  if (!loud) return null;
  const what = `${formatValue(handler)} ${type}`;
  throw rulesRuntimeError(`no message-handler ${what} in class ${formatValue(clsName)}`, {
    clips: `[MSGCOM2] Unable to find message-handler ${what} for class ${formatValue(clsName)} in function ${fn}.`,
  });
}

/**
 * The head of `(defmessage-handler CLASS name [type] ["comment"] (?a…) …)` checked as CLIPS
 * 6.30's ParseDefmessageHandler reads it (msgpsr.c): each error names what was wrong and echoes
 * the construct as far as CLIPS's pretty-print buffer had it, token by token.
 */
import { echoToken, failWithEcho, syntaxError } from "./construct-check.js";
import { checkConstructName } from "./parse-procedural.js";
import { tokenText } from "./pp-reader.js";
import type { SList, SNode } from "./reader.js";

function fail(at: SNode, clips: string, echoText: string): never {
  return failWithEcho("defmessage-handler", at, clips, echoText);
}
const HANDLER_TYPES = new Set(["primary", "before", "after", "around"]);

const read = echoToken;

const SYNTAX = syntaxError("defmessage-handler");
const PARAMS = syntaxError("parameter list");

/**
 * Throws CLIPS's error for a bad handler head: no name ([CSTRCPSR2]), an undefined class
 * ([MSGPSR1]), a class whose handlers a running message is executing ([MSGPSR2]), a message
 * name that is no symbol, an unknown handler type ([MSGFUN7]), no
 * parameter list or a parameter that is no variable.
 */
export function checkHandlerHead(
  list: SList,
  module: string,
  classExists: (name: string) => boolean,
  handlersRunning?: (cls: string) => boolean,
): void {
  checkConstructName(list);
  const given = (list.items[1] as SNode & { text: string }).text;
  const sep = given.indexOf("::");
  const cls = sep < 0 ? given : given.slice(sep + 2);
  const head = `(defmessage-handler ${sep < 0 ? module : given.slice(0, sep)}::${cls}`;
  const t1 = list.items[2];
  // The token after the class name starts its own line, unless it closes the construct.
  const afterClass = t1 === undefined ? `${head})` : `${head}\n   ${read(t1)}`;
  if (!classExists(cls)) {
    fail(t1 ?? list, "[MSGPSR1] A class must be defined before its message-handlers.", afterClass);
  }
  if (cls === "INSTANCE" || cls === "INSTANCE-NAME" || cls === "INSTANCE-ADDRESS") {
    fail(
      t1 ?? list,
      `[MSGPSR8] Message-handlers cannot be attached to the class ${cls}.`,
      afterClass,
    );
  }
  if (handlersRunning?.(cls)) {
    fail(
      t1 ?? list,
      "[MSGPSR2] Cannot (re)define message-handlers during execution of \n  other message-handlers for the same class.",
      afterClass,
    );
  }
  if (t1?.type !== "atom" || t1.kind !== "symbol") fail(t1 ?? list, SYNTAX, afterClass);
  let line = `${head} ${t1.text}`;
  let at = 3;
  const t2 = list.items[at];
  if (t2 === undefined) fail(list, SYNTAX, `${line} ) `);
  if (t2.type === "atom" && t2.kind === "symbol") {
    if (!HANDLER_TYPES.has(t2.text)) {
      fail(
        t2,
        "[MSGFUN7] Unrecognized message-handler type in defmessage-handler.",
        `${line} ${t2.text} `,
      );
    }
    line += ` ${t2.text}`;
    at++;
    const c = list.items[at];
    if (c?.type === "atom" && c.kind === "string") {
      line += ` ${tokenText(c)}`;
      at++;
    }
  } else if (t2.type === "atom" && t2.kind === "string") {
    // A comment right after the name: CLIPS wrote the space for a type that did not come.
    line += ` ${tokenText(t2)} `;
    at++;
  } else if (t2.type === "atom") {
    fail(t2, SYNTAX, `${line} ${tokenText(t2)} `);
  }
  const params = list.items[at];
  if (params?.type !== "list") fail(params ?? list, PARAMS, `${line}\n   ${read(params)}`);
  const seen: string[] = [];
  for (const p of params.items) {
    seen.push(p.type === "list" ? "(" : tokenText(p));
    if (p.type !== "atom" || (p.kind !== "sfvar" && p.kind !== "mfvar")) {
      fail(p, PARAMS, `${line}\n   (${seen.join(" ")}`);
    }
  }
}

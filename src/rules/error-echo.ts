/**
 * CLIPS's `ERROR:` echo: when a construct fails to parse, CLIPS prints the message, then
 * `ERROR:` and the construct's pretty-printed text as far as its parser had read it. Where that
 * is depends on what failed: a parse-time check stops at the token it was reading, a check made
 * once the construct was read prints all of it.
 *
 * @example
 * // (defrule r (a ?x) => (printout t (foo ?x) crlf)) fails with [EXPRNPSR3]; CLIPS then prints
 * // "\nERROR:\n(defrule MAIN::r\n   (a ?x)\n   =>\n   (printout t (foo\n"
 */
import { ppConstruct } from "./pp-constructs.js";
import { ppCool } from "./pp-cool.js";
import type { SList, SNode, SourcePos } from "./reader.js";

/** Messages reported after the whole construct was read: its whole text is echoed. */
const WHOLE = new Set([
  "GLOBLPSR1",
  "PRCCODE3",
  "ANALYSIS1",
  "ANALYSIS2",
  "ANALYSIS3",
  "ANALYSIS4",
  "RULEPSR1",
]);
/** Messages about a name being read: the echo stops after the name. */
const AT_NAME = new Set(["EXPRNPSR3", "TMPLTDEF1"]);
/** Messages about a call checked once its arguments are read: the echo stops after its `)`. */
const AFTER_CALL = new Set(["ARGACCES4", "ARGACCES5"]);

/** Where an error's echo stops when its message alone does not say: see KeelError details. */
export type EchoMode = "through" | "whole" | "open";

/**
 * What an error's details add to its echo: `echoAfter`, what CLIPS wrote after the token the
 * echo stops at; `echoText`, the whole echo when the error made it itself (a defglobal's).
 */
export function echoExtras(details: Readonly<Record<string, unknown>>): EchoExtras {
  return {
    after: typeof details.echoAfter === "string" ? details.echoAfter : "",
    ...(typeof details.echoText === "string" ? { text: details.echoText } : {}),
  };
}

/** See {@link echoExtras}. */
export interface EchoExtras {
  readonly after: string;
  readonly text?: string;
}

/** The echo mode an error's details ask for (`echoThrough`, `echoWhole`). */
export function echoMode(details: Readonly<Record<string, unknown>>): EchoMode | undefined {
  if (details.echoThrough === true) return "through";
  if (details.echoOpen === true) return "open";
  return details.echoWhole === true ? "whole" : undefined;
}

/**
 * The text after CLIPS's message for a construct that failed (`"\nERROR:\n" + text + "\n"`),
 * or null when Keel does not know where CLIPS stops for this message.
 */
export function errorEcho(
  form: SList,
  clips: string,
  pos: SourcePos | undefined,
  module: string,
  mode?: EchoMode,
  extras: EchoExtras = { after: "" },
): string | null {
  if (extras.text !== undefined) return `\nERROR:\n${extras.text}\n`;
  const after = extras.after;
  // A message already printed (`clips` empty) still has its construct echoed whole if asked.
  const id = /^\[([A-Z]+\d+)\]/.exec(clips)?.[1] ?? (mode === "whole" ? "" : undefined);
  if (id === undefined) return null;
  const through = mode === "through";
  let text: string | null = null;
  if (WHOLE.has(id) || mode === "whole") {
    text = ppConstruct(form, module);
    if (text === null) return null;
    text = text.slice(0, -1);
    // A deffunction's body is checked after its closing `)` was read, before the buffer took
    // back the line break in front of it.
    // So is a message-handler's.
    const head = form.items[0]?.type === "atom" ? form.items[0].text : "";
    if (head === "deffunction" || head === "defmessage-handler") {
      text = `${text.slice(0, -1)}\n   )`;
    }
  } else if (pos !== undefined) {
    const found = findAt(form, pos);
    if (found === null) return null;
    const [node, parent] = found;
    let limit: number | null = null;
    if (mode === "open") {
      // A list where CLIPS wanted a single token: it stopped at the list's `(`.
      limit = count(form, node, false);
    } else if (through) {
      // A syntax error at the token CLIPS had just read: the echo ends with it.
      limit = count(form, node, node.type === "list");
    } else if (id === "PRNTUTIL2" && node === form) {
      // A syntax error found once the construct's `)` was read (a defrule without `=>`).
      limit = count(form, form, true);
    } else if (AT_NAME.has(id)) {
      const name = node.type === "list" ? node.items[0] : node;
      limit = name ? count(form, name, false) : null;
    } else if (AFTER_CALL.has(id)) {
      const call = id === "ARGACCES5" && node.type === "atom" ? parent : node;
      limit = call ? count(form, call, true) : null;
    }
    if (limit === null) return null;
    text = ppConstruct(form, module, limit);
    // A message-handler's parameter list starts its own line once its `(` is read.
    if (text !== null && mode === "open" && isHandler(form) && /[^\s]\($/.test(text)) {
      text = `${text.slice(0, -1)}\n   (`;
    }
    if (text === null && through && isIsa(node)) {
      // A defclass's precedence error: its header, then the (is-a …) line.
      text = ppCool(form, module)
        .split("\n")
        .slice(0, 2)
        .join("\n")
        // The class's own `)` was not read yet.
        .replace(/\)$/, form.items.at(-1) === node ? "" : ")");
    }
    if (text === null && mode === "open" && isIsa(node)) {
      // A defclass refused before its (is-a …) was read: its header and that list's `(`.
      text = `${ppCool(form, module).split("\n")[0]}\n   (`;
    }
    // A deffacts puts each fact on its own line, a deftemplate each slot: an atom where a fact
    // or slot belongs too.
    if (text !== null && through && node.type === "atom" && parent === form && onLines(form)) {
      // The line break is written once the token after it is read: print one token more, cut
      // after the atom.
      const next = ppConstruct(form, module, limit + 1);
      const at = next === null ? -1 : next.lastIndexOf(`\n   ${node.text}`);
      if (next !== null && at >= 0) text = next.slice(0, at + 4 + node.text.length);
    }
    // A call's arguments are checked once CollectArguments has closed it: `(f a )` → `(f a)`.
    if (text !== null && AFTER_CALL.has(id)) text = text.replace(/ \)$/, ")");
    // A CE group closed where CLIPS expected more: its `)` follows what came before it.
    if (text !== null && through) text = text.replace(/\n +\)$/, ")");
    // A logical inside a not/exists/forall: CLIPS had begun the next line under its CEs.
    if (text !== null && id === "RULELHS1" && through) {
      const line = text.slice(text.lastIndexOf("\n") + 1);
      text += `\n${" ".repeat(line.lastIndexOf("(logical") + 5)}`;
    }
  }
  return text === null ? null : `\nERROR:\n${text}${after}\n`;
}

function onLines(form: SList): boolean {
  const head = form.items[0];
  return head?.type === "atom" && (head.text === "deffacts" || head.text === "deftemplate");
}

function isIsa(node: SNode): boolean {
  const head = node.type === "list" ? node.items[0] : undefined;
  return head?.type === "atom" && head.text === "is-a";
}

/** The node at `pos` (the outermost one starting there) and the list holding it. */
function findAt(root: SNode, pos: SourcePos): [SNode, SList | null] | null {
  const walk = (node: SNode, parent: SList | null): [SNode, SList | null] | null => {
    if (node.pos.line === pos.line && node.pos.column === pos.column) return [node, parent];
    if (node.type === "list") {
      for (const item of node.items) {
        const hit = walk(item, node);
        if (hit) return hit;
      }
    }
    return null;
  };
  return walk(root, null);
}

/** How many tokens CLIPS has read through `target` (through its `)` when `toEnd`). */
function count(root: SNode, target: SNode, toEnd: boolean): number | null {
  let n = 0;
  const walk = (node: SNode): boolean => {
    n++;
    if (node === target && !toEnd) return true;
    if (node.type === "list") {
      for (const item of node.items) if (walk(item)) return true;
      n++;
    }
    return node === target;
  };
  return walk(root) ? n : null;
}

function isHandler(form: SList): boolean {
  const head = form.items[0];
  return head?.type === "atom" && head.text === "defmessage-handler";
}

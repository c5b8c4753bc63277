/**
 * The text CLIPS keeps for each construct (what `ppdefrule` and the other `pp…` commands print)
 * and the text of a construct that failed to parse up to the failing token (CLIPS's `ERROR:`
 * echo). Both replay CLIPS's parsers over the form (`pp-reader.ts`).
 *
 * @example
 * ppConstruct(readForms("(defrule r (a) => (assert (b)))")[0] as SList, "MAIN")
 * // "(defrule MAIN::r\n   (a)\n   =>\n   (assert (b)))\n"
 */
import { atomOrExpression, groupActions, plainList, rhsPattern } from "./pp-actions.js";
import { ruleBody } from "./pp-lhs.js";
import { isSymbol, PPReader, PPStop, type PPToken } from "./pp-reader.js";
import type { SList, SNode } from "./reader.js";

/** The constructs the printer replays. */
const PRINTED = new Set([
  "defrule",
  "deffunction",
  "deftemplate",
  "deffacts",
  "defmodule",
  "defmessage-handler",
]);

/**
 * The pretty-printed text of `form` as CLIPS stores it (ending in a line break), or, given
 * `limit` (the number of tokens CLIPS read before it failed), the text written up to there
 * (without the final line break). Null for a construct the printer does not replay.
 */
export function ppConstruct(form: SList, module: string, limit?: number): string | null {
  const head = form.items[0];
  if (head?.type !== "atom" || !PRINTED.has(head.text)) return null;
  const r = new PPReader(form, limit);
  try {
    r.skip();
    r.skip();
    r.save(`(${head.text} `);
    r.buf.depth = 3;
    switch (head.text) {
      case "defrule":
        defrule(r, module);
        break;
      case "deffunction":
        deffunction(r, module);
        break;
      case "defmessage-handler":
        messageHandler(r, module);
        break;
      case "deftemplate":
        listsOnLines(r, module);
        break;
      case "deffacts":
        listsOnLines(r, module, true);
        break;
      case "defmodule":
        listsOnLines(r, "");
        break;
    }
    r.save("\n");
  } catch (e) {
    if (!(e instanceof PPStop)) throw e;
  }
  return r.buf.text;
}

/**
 * GetConstructNameAndComment: the name (qualified with its module unless `module` is empty),
 * the optional comment, then the next token on a new line. Returns that token.
 */
function header(r: PPReader, module: string, comment = true): PPToken {
  const name = r.get();
  if (module !== "" && !name.print.includes("::")) {
    r.backup();
    r.save(`${module}::${name.print}`);
  }
  let t = r.get();
  if (comment && t.kind === "atom" && t.atom?.kind === "string") {
    r.backup();
    r.save(" ");
    r.save(t.print);
    t = r.get();
  }
  if (t.kind !== ")") {
    r.backup();
    r.save("\n   ");
    r.save(t.print);
  }
  return t;
}

function defrule(r: PPReader, module: string): void {
  const first = header(r, module);
  ruleBody(r, first);
  r.save("\n   ");
  r.buf.depth = 3;
  const end = groupActions(r);
  r.backup();
  r.backup();
  r.save(end.print);
}

function deffunction(r: PPReader, module: string): void {
  parametersAndActions(r, header(r, module));
}

/**
 * `(defmessage-handler MODULE::CLASS name [type] ["comment"]`, then as a deffunction: CLIPS
 * writes the type only when given, and a space after a comment that took the type's place.
 */
function messageHandler(r: PPReader, module: string): void {
  const cls = r.get();
  if (!cls.print.includes("::")) {
    r.backup();
    r.save(`${module}::${cls.print}`);
  }
  r.save(" ");
  r.get();
  let t = r.get();
  const typed = t.kind === "atom" && t.atom?.kind === "symbol";
  if (typed) {
    r.backup();
    r.save(` ${t.print}`);
    t = r.get();
  }
  if (t.kind === "atom" && t.atom?.kind === "string") {
    r.backup();
    r.save(typed ? ` ${t.print}` : ` ${t.print} `);
    t = r.get();
  }
  r.backup();
  r.save("\n   ");
  r.save(t.print);
  parametersAndActions(r, t);
}

/** A deffunction's or handler's parameter list (`open` is its parenthesis), then its actions. */
function parametersAndActions(r: PPReader, open: PPToken): void {
  if (open.kind !== "(") throw new PPStop();
  let t = r.get();
  while (t.kind !== ")") {
    r.save(" ");
    t = r.get();
    if (t.kind === ")") {
      r.backup();
      r.backup();
      r.save(")");
    }
  }
  r.cr();
  const end = groupActions(r);
  r.backup();
  r.backup();
  r.save(end.print);
}

/** deftemplate, deffacts, defmodule: each slot, fact or port on its own line, as written. */
function listsOnLines(r: PPReader, module: string, facts = false): void {
  let t = header(r, module);
  while (t.kind === "(") {
    if (facts) rhsPattern(r);
    else plainList(r);
    t = r.get();
    if (t.kind !== ")") {
      r.backup();
      r.save("\n   ");
      r.save(t.print);
    }
  }
}

/** One atom or expression as CLIPS's printer writes it (a method's parameter query). */
export function ppExpression(node: SNode): string {
  const r = new PPReader(node);
  try {
    atomOrExpression(r);
  } catch (e) {
    if (!(e instanceof PPStop)) throw e;
  }
  return r.buf.text;
}

/**
 * A defmethod as ppdefmethod prints it: `(defmethod MODULE::name [index] ["comment"]`, the
 * parameters one a line, then the actions as a deffunction's. Null for a form it cannot follow.
 */
export function ppDefmethod(form: SList, module: string, headerOnly = false): string | null {
  const items = form.items;
  const name = items[1];
  if (name?.type !== "atom") return null;
  let head = `(defmethod ${name.text.includes("::") ? name.text : `${module}::${name.text}`}`;
  let at = 2;
  const idx = items[at];
  if (idx?.type === "atom" && idx.kind === "integer") {
    head += ` ${idx.text}`;
    at++;
  }
  const comment = items[at];
  if (comment?.type === "atom" && comment.kind === "string") {
    head += ` ${ppExpression(comment)}`;
    at++;
  }
  const params = items[at];
  if (params?.type !== "list") return null;
  const one = (p: SNode): string =>
    p.type === "atom" ? ppExpression(p) : `(${p.items.map((x) => ppExpression(x)).join(" ")})`;
  const paramText = `(${params.items.map(one).join("\n    ")})`;
  // The echo of a method refused once its parameters were read ([GENRCPSR2]).
  if (headerOnly) return `${head}\n   ${paramText}\n   `;
  // The actions print as a deffunction's: borrow its printer on a form without parameters.
  const symbol = (text: string): SNode => ({ ...name, kind: "symbol", text, value: text });
  const body: SList = {
    ...form,
    items: [symbol("deffunction"), symbol("m"), { ...params, items: [] }, ...items.slice(at + 1)],
  };
  const fn = ppConstruct(body, "MAIN");
  const open = "\n   ()";
  const cut = fn?.indexOf(open) ?? -1;
  if (fn === null || fn === undefined || cut < 0) return null;
  return `${head}\n   ${paramText}${fn.slice(cut + open.length)}`;
}

/** `(defglobal MODULE ?*name* = value)` for one global, as ppdefglobal prints it. */
export function ppDefglobal(module: string, name: string, value: SNode): string {
  const r = new PPReader(value);
  try {
    atomOrExpression(r);
  } catch (e) {
    if (!(e instanceof PPStop)) throw e;
  }
  return `(defglobal ${module} ?*${name}* = ${r.buf.text})\n`;
}

export { isSymbol };

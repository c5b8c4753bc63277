/**
 * The syntax of a defmodule's export and import specifications, checked as CLIPS 6.30's
 * modulpsr.c reads them: `(export ?ALL|?NONE)`, `(export TYPE ?ALL|?NONE|name…)` with TYPE one
 * of deftemplate, defclass, defglobal, deffunction, defgeneric, and `(import MODULE …)` alike.
 * A failure is `[PRNTUTIL2]` echoed through the token CLIPS stopped at. Keel checks the syntax
 * only: imports and exports are not enforced.
 *
 * @example
 * // (defmodule B (export deffacts ?ALL)) prints "[PRNTUTIL2] Syntax Error:  Check appropriate
 * // syntax for defmodule export specification." and "(defmodule B\n   (export deffacts"
 */
import { rulesParseError } from "./errors.js";
import { tokenText } from "./pp-reader.js";
import { describe, type SAtom, type SList, type SNode } from "./reader.js";

const ALL_OR_NONE = /^\?(ALL|NONE)$/;

const EXPORTABLE = new Set(["deftemplate", "defclass", "defglobal", "deffunction", "defgeneric"]);

/**
 * Throws CLIPS's error for the first malformed specification of `(defmodule name …)`.
 * `onImport` is called with an import's module as soon as it is read (CLIPS checks that the
 * module exists and exports something before it reads on), with the echo so far.
 */
export function checkModuleSpecs(
  list: SList,
  onImport?: (module: SAtom, spec: SList, echo: string) => void,
): void {
  const parts = moduleParts(list);
  // CLIPS's echo holds the specifications read before, each on its line.
  let head = parts.head;
  parts.specs.forEach((spec, k) => {
    const before = parts.specs[k - 1];
    if (before?.type === "list") head += `\n   (${before.items.map(text).join(" ")})`;
    const kw = spec.type === "list" ? spec.items[0] : spec;
    const word = kw?.type === "atom" ? kw.text : "";
    if (spec.type !== "list" || (word !== "export" && word !== "import")) {
      const at = spec.type === "list" ? (kw ?? spec) : spec;
      fail(at, "defmodule", `${head}\n   ${spec.type === "list" ? "(" : ""}${text(kw)}`);
    }
    const items = (spec as SList).items;
    const what = `defmodule ${word} specification`;
    let echo = `${head}\n   (${word}`;
    let i = 1;
    if (word === "import") {
      const module = items[1];
      if (module?.type !== "atom" || module.kind !== "symbol")
        fail(module ?? spec, what, `${echo} ${text(module)}`);
      echo += ` ${text(module)}`;
      onImport?.(module, spec as SList, echo);
      i = 2;
    }
    specification(items.slice(i), spec, what, echo);
  });
}

/** The echo of `(defmodule name ["comment"]` and the specifications after it. */
export function moduleParts(list: SList): { head: string; specs: readonly SNode[] } {
  const name = list.items[1];
  let k = 2;
  let head = `(defmodule ${name?.type === "atom" ? name.text : ""}`;
  const comment = list.items[k];
  if (comment?.type === "atom" && comment.kind === "string") {
    head += ` ${tokenText(comment)}`;
    k++;
  }
  return { head, specs: list.items.slice(k) };
}

/** `?ALL`, `?NONE`, or a construct type then `?ALL`, `?NONE` or names. */
function specification(rest: readonly SNode[], spec: SNode, what: string, echo: string): void {
  const first = rest[0];
  if (first === undefined) fail(spec, what, `${echo} )`);
  const all = (n: SNode | undefined) => n?.type === "atom" && ALL_OR_NONE.test(tokenText(n));
  if (all(first)) {
    if (rest[1] !== undefined) fail(rest[1], what, `${echo} ${text(first)} ${text(rest[1])}`);
    return;
  }
  if (first.type !== "atom" || !EXPORTABLE.has(first.text))
    fail(first, what, `${echo} ${text(first)}`);
  const after = `${echo} ${text(first)}`;
  const second = rest[1];
  if (second === undefined) fail(spec, what, `${after} )`);
  if (all(second)) {
    if (rest[2] !== undefined) fail(rest[2], what, `${after} ${text(second)} ${text(rest[2])}`);
    return;
  }
  let read = after;
  for (const n of rest.slice(1)) {
    read += ` ${text(n)}`;
    if (n.type !== "atom" || n.kind !== "symbol" || all(n)) fail(n, what, read);
  }
}

function text(n: SNode | undefined): string {
  if (n === undefined) return ")";
  return n.type === "atom" ? tokenText(n) : "(";
}

function fail(at: SNode, what: string, echoText: string): never {
  throw moduleError(
    at,
    `[PRNTUTIL2] Syntax Error:  Check appropriate syntax for ${what}.`,
    echoText,
  );
}

/** A defmodule error with CLIPS's message `clips` and the echo `echoText`. */
export function moduleError(at: SNode, clips: string, echoText: string): Error {
  const error = rulesParseError(at.pos, "a valid defmodule", describe(at), {
    construct: "defmodule",
    clips,
  });
  Object.assign(error.details, { echoText });
  return error;
}

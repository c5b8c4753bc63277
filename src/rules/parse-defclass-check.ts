/**
 * A defclass checked as CLIPS 6.30's ParseDefclass reads it (classpsr.c, inherpsr.c,
 * clsltpsr.c): each error names what was wrong and echoes the construct as far as CLIPS had
 * read it — the parts before the bad one pretty-printed as ppdefclass prints them, then the bad
 * part's tokens.
 */
import { echoToken, failWithEcho, syntaxError } from "./construct-check.js";
import { rulesParseError } from "./errors.js";
import { checkConstructName } from "./parse-procedural.js";
import { ppCool } from "./pp-cool.js";
import type { SList, SNode } from "./reader.js";
import { isConstraintAttribute, SlotConstraintReader } from "./slot-constraints.js";
import { SYSTEM_CLASS_NAMES } from "./system-classes.js";

/** Whether a class is defined. */
export type ClassExists = (name: string) => boolean;

/** The classes CLIPS predefines: a defclass may not name one. */
const PREDEFINED = new Set(SYSTEM_CLASS_NAMES);

/** The system classes a user class may not inherit from. */
const NOT_SUPERCLASSES = new Set(["INSTANCE", "INSTANCE-NAME", "INSTANCE-ADDRESS"]);

/** A slot facet's allowed words (absent: any value). */
const FACET_WORDS: ReadonlyMap<string, readonly string[]> = new Map([
  ["storage", ["local", "shared"]],
  ["access", ["read-write", "read-only", "initialize-only"]],
  ["propagation", ["inherit", "no-inherit"]],
  ["source", ["exclusive", "composite"]],
  ["pattern-match", ["reactive", "non-reactive"]],
  ["visibility", ["private", "public"]],
  ["create-accessor", ["?NONE", "read", "write", "read-write"]],
]);
const OTHER_FACETS = new Set(["default", "default-dynamic", "override-message"]);
const CONSTRAINTS = new Set([
  "type",
  "range",
  "cardinality",
  "allowed-values",
  "allowed-symbols",
  "allowed-strings",
  "allowed-lexemes",
  "allowed-integers",
  "allowed-floats",
  "allowed-numbers",
  "allowed-instance-names",
  "allowed-classes",
]);
const SLOTS = new Set(["slot", "single-slot", "multislot"]);

const syntax = syntaxError;
function fail(at: SNode, clips: string, echoText: string): never {
  return failWithEcho("defclass", at, clips, echoText);
}

const tok = echoToken;

function word(n: SNode | undefined): string | null {
  return n?.type === "atom" ? n.text : null;
}

/**
 * Throws CLIPS's error for a bad defclass: no name ([CSTRCPSR2]), a predefined class's name
 * ([CLASSPSR2]), a bad `(is-a …)` ([INHERPSR1], [INHERPSR2], [INHERPSR3], [INHERPSR4], [INHERPSR6]), a
 * role or pattern-match given twice ([CLASSPSR4]), a bad or duplicate slot ([CLSLTPSR1]), a
 * facet given twice ([CLSLTPSR2], [PRNTUTIL5]) or with a bad value.
 */
export function checkDefclass(list: SList, module: string, classExists: ClassExists): void {
  checkConstructName(list);
  const items = list.items;
  const name = word(items[1]) as string;
  let at = 2;
  if (items[at]?.type === "atom" && (items[at] as SNode & { kind: string }).kind === "string") at++;
  // What CLIPS echoes once it read items[0 .. end) whole: the text without its last `)`.
  const upTo = (end: number, last?: SList): string => {
    const parts = last ? [...items.slice(0, end), last] : items.slice(0, end);
    return ppCool({ ...list, items: parts }, module).slice(0, last ? -3 : -2);
  };
  const header = upTo(at);
  const isa = items[at];
  const next = isa === undefined ? ")" : `\n   ${tok(isa)}`;
  const sep = name.indexOf("::");
  if (PREDEFINED.has(sep < 0 ? name : name.slice(sep + 2))) {
    fail(isa ?? list, "[CLASSPSR2] Cannot redefine a predefined system class.", `${header}${next}`);
  }
  const inheritance = syntax("defclass inheritance");
  if (isa === undefined) fail(list, inheritance, `${header})`);
  if (isa.type !== "list") fail(isa, inheritance, `${header}${next}`);
  if (word(isa.items[0]) !== "is-a") fail(isa, inheritance, `${header}\n   (${tok(isa.items[0])}`);
  if (isa.items.length === 1) {
    fail(isa, "[INHERPSR4] Must have at least one superclass.", `${header}\n   (is-a )`);
  }
  const supers: string[] = [];
  for (const s of isa.items.slice(1)) {
    const echo = `${header}\n   (is-a ${[...supers, tok(s)].join(" ")}`;
    if (s.type !== "atom" || s.kind !== "symbol") fail(s, syntax("defclass"), echo);
    // Checked before the superclass is looked up (CLIPS's ParseSuperclasses).
    if (s.text === (sep < 0 ? name : name.slice(sep + 2))) {
      fail(s, "[INHERPSR1] A class may not have itself as a superclass.", echo);
    }
    if (supers.includes(s.text)) {
      fail(s, "[INHERPSR2] A class may inherit from a superclass only once.", echo);
    }
    if (!classExists(s.text) && s.text !== name) {
      fail(s, "[INHERPSR3] A class must be defined after all its superclasses.", echo);
    }
    if (NOT_SUPERCLASSES.has(s.text)) {
      fail(s, `[INHERPSR6] A user-defined class cannot be a subclass of ${s.text}.`, echo);
    }
    supers.push(s.text);
  }
  const declared = new Set<string>();
  const slotNames = new Set<string>();
  for (let p = at + 1; p < items.length; p++) {
    const part = items[p] as SNode;
    const before = upTo(p);
    if (part.type !== "list") fail(part, syntax("defclass"), `${before}${tok(part)}`);
    const head = word(part.items[0]);
    const open = `${before}\n   (${tok(part.items[0])}`;
    if (head === "role" || head === "pattern-match") {
      if (declared.has(head)) fail(part, `[CLASSPSR4] Class ${head} already declared.`, open);
      declared.add(head);
      const value = word(part.items[1]);
      const allowed = head === "role" ? ["abstract", "concrete"] : ["reactive", "non-reactive"];
      if (value === null || !allowed.includes(value) || part.items.length > 2) {
        fail(part, syntax("defclass"), `${open} ${tok(part.items[1])}`);
      }
      continue;
    }
    if (head === "message-handler") continue;
    if (head === null || !SLOTS.has(head)) fail(part, syntax("defclass"), open);
    checkSlot(part, open, slotNames, (k) => upTo(p, { ...part, items: part.items.slice(0, k) }));
  }
}

/** One `(slot name facet…)`: `open` is the echo through its keyword; `through(k)` through its k-th item. */
function checkSlot(
  slot: SList,
  open: string,
  seen: Set<string>,
  through: (k: number) => string,
): void {
  const nameNode = slot.items[1];
  const named = `${open} ${tok(nameNode)}`;
  if (nameNode?.type !== "atom" || nameNode.kind !== "symbol") {
    fail(nameNode ?? slot, syntax("defclass slot"), named);
  }
  if (seen.has(nameNode.text)) fail(nameNode, "[CLSLTPSR1] Duplicate slots not allowed.", named);
  seen.add(nameNode.text);
  const facets = new Set<string>();
  // The constraint attributes as a deftemplate's are read (cardinality checked below instead).
  const constraints = new SlotConstraintReader(true, "defclass");
  for (let k = 2; k < slot.items.length; k++) {
    const f = slot.items[k] as SNode;
    const before = through(k);
    if (f.type !== "list") fail(f, syntax("defclass slot"), `${before}${tok(f)}`);
    const head = word(f.items[0]);
    const fopen = `${before}\n      (${tok(f.items[0])}`;
    if (head !== null && CONSTRAINTS.has(head)) {
      if (facets.has(head))
        fail(f, `[PRNTUTIL5] The ${head} attribute has already been parsed.`, fopen);
      facets.add(head);
      if (isConstraintAttribute(head)) constraints.readAttribute(f);
      continue;
    }
    const words = head === null ? undefined : FACET_WORDS.get(head);
    if (head === null || (words === undefined && !OTHER_FACETS.has(head))) {
      fail(f, syntax("defclass slot"), fopen);
    }
    const key = head === "default-dynamic" ? "default" : head;
    if (facets.has(key)) fail(f, `[CLSLTPSR2] ${key} facet already specified.`, fopen);
    facets.add(key);
    const value = f.items[1];
    if (words !== undefined) {
      if (value?.type !== "atom" || !words.includes(tok(value)) || f.items.length > 2) {
        fail(f, syntax("slot facet"), `${fopen} ${tok(value)}`);
      }
    }
    if (key === "default") {
      // A variable other than ?NONE and ?DERIVE (a global excepted) has nothing to be bound to.
      for (const v of f.items.slice(1)) {
        if (v.type !== "atom" || (v.kind !== "sfvar" && v.kind !== "mfvar")) continue;
        if (v.text === "NONE" || v.text === "DERIVE" || v.text.startsWith("*")) continue;
        const read = f.items.slice(1, f.items.indexOf(v) + 1).map(tok);
        fail(v, syntax(`${head} attribute`), `${before}\n      (${head} ${read.join(" ")}`);
      }
    }
  }
  // Checked once the slot's `)` is read: the echo runs through it (defclass-echo.ts).
  const single = word(slot.items[0]) !== "multislot" && !facets.has("source");
  if (single && facets.has("cardinality")) {
    throw rulesParseError(slot.pos, "a multislot", "a single-field slot", {
      construct: "defclass",
      clips: "[CLSLTPSR3] Cardinality facet can only be used with multifield slots",
      echoThrough: true,
    });
  }
  constraints.checkConflicts(slot);
}

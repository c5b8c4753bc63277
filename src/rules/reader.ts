import { rulesParseError } from "./errors.js";
import type { SourcePos } from "./source-pos.js";
import { type Atom, float, instanceName, str } from "./values.js";

export type { SourcePos };

/** A token that is not a parenthesis. */
export type AtomKind =
  | "symbol"
  | "string"
  | "integer"
  | "float"
  | "sfvar" // ?x
  | "instance" // [name]
  | "mfvar" // $?x
  | "sfwild" // ?
  | "mfwild" // $?
  | "gvar" // ?*x*
  | "and" // &
  | "or" // |
  | "not"; // ~

/** One atom of a form: its kind, its text (the variable name for variables) and its value. */
export interface SAtom {
  readonly type: "atom";
  readonly kind: AtomKind;
  readonly text: string;
  readonly value: Atom;
  readonly pos: SourcePos;
}

/** A parenthesised list. */
export interface SList {
  readonly type: "list";
  readonly items: SNode[];
  readonly pos: SourcePos;
  /** The source text of the list, for error messages and rule listings. */
  readonly source: string;
}

export type SNode = SAtom | SList;

const DELIMITERS = new Set([" ", "\t", "\n", "\r", "\f", "(", ")", '"', ";", "&", "|", "~"]);
const INTEGER = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(\d+\.\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|\d+[eE][+-]?\d+)$/;

// Character codes the reader's scanning loop compares (it reads codes, not one-character strings).
const LF = 10;
const QUOTE = 34;
const AMP = 38;
const OPEN = 40;
const CLOSE = 41;
const SEMI = 59;
const QMARK = 63;
const LT = 60;
const BACKSLASH = 92;
const BAR = 124;
const TILDE = 126;
/** 1 for the codes below 128 that end a token: DELIMITERS and `<` (see endsToken). */
const ENDS = new Uint8Array(128);
for (const d of DELIMITERS) ENDS[d.charCodeAt(0)] = 1;
ENDS[LT] = 1;

/**
 * The deepest nesting of parentheses the reader accepts. Real programs nest a few dozen levels;
 * the parser and the evaluator recurse once per level, so a deeper form (100k parentheses) is
 * refused here with RULES_PARSE rather than overflow the stack later.
 */
export const MAX_FORM_DEPTH = 256;

/**
 * Reads CLIPS source text into top-level forms (S-expressions), with positions.
 * Fails with RULES_PARSE on unbalanced parentheses and unterminated strings.
 *
 * @example
 * readForms("(assert (a 1))") // one SList
 */
export function readForms(source: string): SNode[] {
  return new Reader(source).readAll([]);
}

/**
 * Reads as many top-level forms as it can: the forms before the first reader error, and that
 * error (null when the whole text read). CLIPS runs each form as soon as it has read it, so what
 * comes before an unbalanced parenthesis still runs.
 */
export function readFormsUntilError(
  source: string,
  onStrayClose?: (error: unknown) => void,
): { forms: SNode[]; error: unknown } {
  const forms: SNode[] = [];
  try {
    new Reader(source, onStrayClose).readAll(forms);
    return { forms, error: null };
  } catch (error) {
    return { forms, error };
  }
}

class Reader {
  private i = 0;
  private line = 1;
  /** Index in `src` of the current line's first character: a column is `i - lineStart + 1`. */
  private lineStart = 0;
  /** How many lists are open at this point. */
  private depth = 0;
  private readonly end: number;
  /** `onStrayClose`: given, a `)` outside any form is reported to it and skipped, as CLIPS does. */
  constructor(
    private readonly src: string,
    private readonly onStrayClose?: (error: unknown) => void,
  ) {
    this.end = src.length;
  }

  /** Reads every form into `forms` (which keeps those read before an error) and returns it. */
  readAll(forms: SNode[]): SNode[] {
    for (;;) {
      this.skipSpace();
      if (this.i >= this.end) return forms;
      if (this.src.charCodeAt(this.i) === CLOSE) {
        const error = rulesParseError(this.pos(), "an opening '(' or a construct", "')'", {
          hint: "Remove the extra ')' or add the '(' it closes.",
        });
        if (!this.onStrayClose) throw error;
        this.onStrayClose(error);
        this.i++;
        continue;
      }
      forms.push(this.readNode());
    }
  }

  private pos(): SourcePos {
    return { line: this.line, column: this.i - this.lineStart + 1 };
  }

  private skipSpace(): void {
    const src = this.src;
    let i = this.i;
    while (i < this.end) {
      const c = src.charCodeAt(i);
      if (c === SEMI) {
        while (i < this.end && src.charCodeAt(i) !== LF) i++;
      } else if (c === LF) {
        i++;
        this.line++;
        this.lineStart = i;
      } else if (c === 32 || c === 9 || c === 13 || c === 12) i++;
      else break;
    }
    this.i = i;
  }

  private readNode(): SNode {
    if (this.src.charCodeAt(this.i) === OPEN) return this.readList();
    return this.readAtom();
  }

  private readList(): SList {
    const pos = this.pos();
    if (this.depth >= MAX_FORM_DEPTH) {
      throw rulesParseError(
        pos,
        `a form nested at most ${MAX_FORM_DEPTH} levels deep`,
        "deeper nesting",
        {
          hint: "Split the expression into smaller ones (a deffunction, or intermediate bindings).",
        },
      );
    }
    this.depth++;
    try {
      return this.readListItems(pos);
    } finally {
      this.depth--;
    }
  }

  private readListItems(pos: SourcePos): SList {
    const start = this.i;
    this.i++;
    const items: SNode[] = [];
    for (;;) {
      this.skipSpace();
      if (this.i >= this.end) {
        throw rulesParseError(pos, "')'", "end of input", {
          hint: `The '(' at line ${pos.line}, column ${pos.column} is never closed: add the missing ')'.`,
        });
      }
      if (this.src.charCodeAt(this.i) === CLOSE) {
        this.i++;
        return { type: "list", items, pos, source: this.src.slice(start, this.i) };
      }
      items.push(this.readNode());
    }
  }

  private readAtom(): SAtom {
    const pos = this.pos();
    const src = this.src;
    const c = src.charCodeAt(this.i);
    if (c === QUOTE) return this.readString(pos);
    if (c === AMP || c === BAR || c === TILDE) {
      this.i++;
      const kind = c === AMP ? "and" : c === BAR ? "or" : "not";
      const text = c === AMP ? "&" : c === BAR ? "|" : "~";
      return { type: "atom", kind, text, value: text, pos };
    }
    // A bare token holds no line break (it ends at white space), so the line does not move.
    const start = this.i;
    let i = start + 1;
    while (i < this.end) {
      const d = src.charCodeAt(i);
      if (d < 128 && ENDS[d] !== 0) break;
      i++;
    }
    // `?` or `$?` not followed by a letter or `*` is a wildcard, and the next token starts right
    // after it (CLIPS's scanner): `??` is two wildcards, `?1` a wildcard and 1.
    const prefix = src.charCodeAt(start) === QMARK ? 1 : src.startsWith("$?", start) ? 2 : 0;
    if (prefix > 0 && start + prefix < i && !startsVariableName(src.charCodeAt(start + prefix))) {
      i = start + prefix;
    }
    this.i = i;
    return classify(src.slice(start, i), pos);
  }

  private readString(pos: SourcePos): SAtom {
    const src = this.src;
    let i = this.i + 1;
    // The text between the quotes, copied a run of characters at a time (between escapes).
    let out = "";
    let runStart = i;
    for (;;) {
      if (i >= this.end) {
        this.i = i;
        throw rulesParseError(pos, "a closing '\"'", "end of input", {
          hint: "Close the string that starts here.",
        });
      }
      const c = src.charCodeAt(i);
      if (c === QUOTE) {
        out += src.slice(runStart, i);
        i++;
        break;
      }
      if (c === LF) {
        this.line++;
        this.lineStart = i + 1;
      } else if (c === BACKSLASH && i + 1 < this.end) {
        // The escaped character stands for itself (a line break too).
        out += src.slice(runStart, i);
        runStart = i + 1;
        i++;
        if (src.charCodeAt(i) === LF) {
          this.line++;
          this.lineStart = i + 1;
        }
      }
      i++;
    }
    this.i = i;
    return { type: "atom", kind: "string", text: out, value: str(out), pos };
  }
}

/**
 * The value of a bare token (no quotes, no delimiters) as {@link classify} reads it: an integer,
 * a float or a symbol; null for a variable or a wildcard.
 */
export function literalAtom(text: string): Atom | null {
  if (INTEGER.test(text)) return Number.parseInt(text, 10);
  if (FLOAT.test(text)) return float(Number.parseFloat(text));
  if (text.startsWith("?") || text.startsWith("$?")) return null;
  return text;
}

/** True when `c` ends a bare token. */
export function isDelimiter(c: string): boolean {
  return DELIMITERS.has(c);
}

/**
 * True when `c`, after a token's first character, ends it: a delimiter, or `<`, which CLIPS's
 * scanner lets start a symbol (`<=`, `<x`) but not continue one (`a<b` reads as `a` `<b`).
 */
/** A letter, `*` (a global) or a non-ASCII character: what may follow `?` in a variable. */
function startsVariableName(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 42 || c >= 128;
}

export function endsToken(c: string): boolean {
  return c === "<" || DELIMITERS.has(c);
}

/** True when a token starting with code `c` may be a number (a digit, a sign or a point). */
function mayBeNumber(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;
}

function classify(text: string, pos: SourcePos): SAtom {
  const first = text.charCodeAt(0);
  if (mayBeNumber(first)) {
    if (INTEGER.test(text)) {
      return { type: "atom", kind: "integer", text, value: Number.parseInt(text, 10), pos };
    }
    if (FLOAT.test(text)) {
      return { type: "atom", kind: "float", text, value: float(Number.parseFloat(text)), pos };
    }
  }
  if (first === 63 /* ? */) {
    if (text.length === 1) return { type: "atom", kind: "sfwild", text, value: text, pos };
    if (text.charCodeAt(1) === 42 /* * */ && text.length > 3 && text.endsWith("*")) {
      return { type: "atom", kind: "gvar", text: text.slice(2, -1), value: text, pos };
    }
    return { type: "atom", kind: "sfvar", text: text.slice(1), value: text, pos };
  }
  if (first === 36 /* $ */ && text.charCodeAt(1) === 63) {
    if (text.length === 2) return { type: "atom", kind: "mfwild", text, value: text, pos };
    return { type: "atom", kind: "mfvar", text: text.slice(2), value: text, pos };
  }
  if (first === 91 /* [ */ && text.length > 2 && text.endsWith("]")) {
    return { type: "atom", kind: "instance", text, value: instanceName(text.slice(1, -1)), pos };
  }
  return { type: "atom", kind: "symbol", text, value: text, pos };
}

/** A short description of a node for "expected X, found Y" messages. */
export function describe(node: SNode | undefined): string {
  if (node === undefined) return "')'";
  if (node.type === "list") return "a '(' list";
  switch (node.kind) {
    case "string":
      return `the string "${node.text}"`;
    case "sfvar":
      return `the variable ?${node.text}`;
    case "mfvar":
      return `the variable $?${node.text}`;
    default:
      return `'${node.text}'`;
  }
}

/**
 * The last token of `node` and the `)`s closing the lists it sits in: where CLIPS's echo of an
 * error read through `node` ends.
 *
 * @example
 * const { last, closing } = lastToken(readForms("(a (b c))")[0] as SNode); // c, "))"
 */
export function lastToken(node: SNode): { last: SNode; closing: string } {
  let last = node;
  let closing = "";
  while (last.type === "list" && last.items.length > 0) {
    last = last.items.at(-1) as SNode;
    closing += ")";
  }
  return { last, closing };
}

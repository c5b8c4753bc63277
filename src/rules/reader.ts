import { rulesParseError } from "./errors.js";
import type { SourcePos } from "./source-pos.js";
import { type Atom, float, str } from "./values.js";

export type { SourcePos };

/** A token that is not a parenthesis. */
export type AtomKind =
  | "symbol"
  | "string"
  | "integer"
  | "float"
  | "sfvar" // ?x
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
export function readFormsUntilError(source: string): { forms: SNode[]; error: unknown } {
  const forms: SNode[] = [];
  try {
    new Reader(source).readAll(forms);
    return { forms, error: null };
  } catch (error) {
    return { forms, error };
  }
}

class Reader {
  private i = 0;
  private line = 1;
  private col = 1;
  constructor(private readonly src: string) {}

  /** Reads every form into `forms` (which keeps those read before an error) and returns it. */
  readAll(forms: SNode[]): SNode[] {
    for (;;) {
      this.skipSpace();
      if (this.i >= this.src.length) return forms;
      if (this.src[this.i] === ")") {
        throw rulesParseError(this.pos(), "an opening '(' or a construct", "')'", {
          hint: "Remove the extra ')' or add the '(' it closes.",
        });
      }
      forms.push(this.readNode());
    }
  }

  private pos(): SourcePos {
    return { line: this.line, column: this.col };
  }

  private advance(): string {
    const c = this.src[this.i++] as string;
    if (c === "\n") {
      this.line++;
      this.col = 1;
    } else this.col++;
    return c;
  }

  private skipSpace(): void {
    while (this.i < this.src.length) {
      const c = this.src[this.i];
      if (c === ";") {
        while (this.i < this.src.length && this.src[this.i] !== "\n") this.advance();
      } else if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f") this.advance();
      else return;
    }
  }

  private readNode(): SNode {
    const c = this.src[this.i];
    if (c === "(") return this.readList();
    return this.readAtom();
  }

  private readList(): SList {
    const pos = this.pos();
    const start = this.i;
    this.advance();
    const items: SNode[] = [];
    for (;;) {
      this.skipSpace();
      if (this.i >= this.src.length) {
        throw rulesParseError(pos, "')'", "end of input", {
          hint: `The '(' at line ${pos.line}, column ${pos.column} is never closed: add the missing ')'.`,
        });
      }
      if (this.src[this.i] === ")") {
        this.advance();
        return { type: "list", items, pos, source: this.src.slice(start, this.i) };
      }
      items.push(this.readNode());
    }
  }

  private readAtom(): SAtom {
    const pos = this.pos();
    const c = this.src[this.i] as string;
    if (c === '"') return this.readString(pos);
    if (c === "&" || c === "|" || c === "~") {
      this.advance();
      const kind = c === "&" ? "and" : c === "|" ? "or" : "not";
      return { type: "atom", kind, text: c, value: c, pos };
    }
    const start = this.i;
    this.advance();
    while (this.i < this.src.length && !endsToken(this.src[this.i] as string)) this.advance();
    const text = this.src.slice(start, this.i);
    return classify(text, pos);
  }

  private readString(pos: SourcePos): SAtom {
    this.advance();
    let out = "";
    for (;;) {
      if (this.i >= this.src.length) {
        throw rulesParseError(pos, "a closing '\"'", "end of input", {
          hint: "Close the string that starts here.",
        });
      }
      const c = this.advance();
      if (c === '"') break;
      if (c === "\\" && this.i < this.src.length) out += this.advance();
      else out += c;
    }
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
export function endsToken(c: string): boolean {
  return c === "<" || DELIMITERS.has(c);
}

function classify(text: string, pos: SourcePos): SAtom {
  if (INTEGER.test(text)) {
    return { type: "atom", kind: "integer", text, value: Number.parseInt(text, 10), pos };
  }
  if (FLOAT.test(text)) {
    return { type: "atom", kind: "float", text, value: float(Number.parseFloat(text)), pos };
  }
  if (text === "?") return { type: "atom", kind: "sfwild", text, value: text, pos };
  if (text === "$?") return { type: "atom", kind: "mfwild", text, value: text, pos };
  if (text.startsWith("?*") && text.endsWith("*") && text.length > 3) {
    return { type: "atom", kind: "gvar", text: text.slice(2, -1), value: text, pos };
  }
  if (text.startsWith("$?"))
    return { type: "atom", kind: "mfvar", text: text.slice(2), value: text, pos };
  if (text.startsWith("?"))
    return { type: "atom", kind: "sfvar", text: text.slice(1), value: text, pos };
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

/**
 * A fast path for the most common host input: one fact written with literal atoms, such as
 * `(event (id e7) (severity 3))` or `(severity 5)`. It reads the values straight from the text,
 * without building forms, expressions and closures for them. Anything else — strings, variables,
 * function calls, comments, unknown or repeated slots, a single slot without exactly one value,
 * more than one form — returns null and goes through the full reader and parser, which gives the
 * same values and the same errors.
 */
import type { Template } from "./ast.js";
import type { ResolvedFact } from "./evaluate.js";
import { endsToken, isDelimiter, literalAtom } from "./reader.js";
import type { Atom, Value } from "./values.js";

class Scanner {
  i = 0;
  constructor(readonly text: string) {}

  skipSpace(): void {
    const text = this.text;
    while (this.i < text.length) {
      const c = text[this.i];
      if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r" && c !== "\f") return;
      this.i++;
    }
  }

  /** Consumes `c` (after spaces) if it comes next. */
  eat(c: string): boolean {
    this.skipSpace();
    if (this.text[this.i] !== c) return false;
    this.i++;
    return true;
  }

  /** The next bare token's value, or null when what follows is not a plain atom. */
  atom(): Atom | null {
    this.skipSpace();
    const start = this.i;
    const text = this.text;
    if (this.i < text.length && !isDelimiter(text[this.i] as string)) this.i++;
    else return null;
    while (this.i < text.length && !endsToken(text[this.i] as string)) this.i++;
    const next = text[this.i];
    // A token cut short by a connective, a quote or a comment is not a plain atom.
    if (next === '"' || next === ";" || next === "&" || next === "|" || next === "~") return null;
    return literalAtom(text.slice(start, this.i));
  }

  /** Atoms up to and including the closing parenthesis of the current list, or null. */
  atomsToClose(): Atom[] | null {
    const out: Atom[] = [];
    while (!this.eat(")")) {
      const v = this.atom();
      if (v === null) return null;
      out.push(v);
    }
    return out;
  }

  atEnd(): boolean {
    this.skipSpace();
    return this.i === this.text.length;
  }
}

/** The fact `text` describes, when it is one fact of literal atoms; otherwise null. */
export function readLiteralFact(
  text: string,
  template: (name: string) => Template | undefined,
): ResolvedFact | null {
  const s = new Scanner(text);
  if (!s.eat("(")) return null;
  const relation = s.atom();
  if (typeof relation !== "string") return null;
  const t = template(relation);
  if (!t) {
    const fields = s.atomsToClose();
    return fields && s.atEnd() ? { kind: "ordered", relation, fields } : null;
  }
  const slots = new Map<number, Value>();
  while (!s.eat(")")) {
    if (!s.eat("(")) return null;
    const name = s.atom();
    const index = typeof name === "string" ? t.slotIndex.get(name) : undefined;
    if (index === undefined || slots.has(index)) return null;
    const values = s.atomsToClose();
    if (!values) return null;
    if (t.slots[index]?.multi) slots.set(index, values);
    else if (values.length === 1) slots.set(index, values[0] as Atom);
    else return null;
  }
  return s.atEnd() ? { kind: "template", template: t, slots } : null;
}

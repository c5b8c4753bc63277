/**
 * Standard input for `read`, `readline` and `read-number`, as CLIPS reads it: `read` takes one
 * token and drops the rest of its line; `readline` takes a whole line; at the end of the input
 * both answer the symbol EOF. The engine does no I/O: the host supplies the text in chunks.
 */
import { readForms } from "./reader.js";
import { type Atom, isNumber, str, type Value } from "./values.js";

/** Gives the next chunk of standard input, or null at its end. */
export type InputSource = () => string | null;

const EOF = "EOF";
const SPACE = /[ \t\r\f\n]/;
const ENDS = /[ \t\r\f\n()";&|~<]/;

export class InputBuffer {
  private text = "";
  private pos = 0;
  private ended = false;

  constructor(private readonly source: InputSource | null) {}

  /** Makes sure a character is buffered at `i` (or the input has ended); true when one is. */
  private fill(i: number): boolean {
    while (i >= this.text.length && !this.ended) {
      const chunk = this.source ? this.source() : null;
      if (chunk === null) this.ended = true;
      else {
        this.text = this.text.slice(this.pos) + chunk;
        i -= this.pos;
        this.pos = 0;
      }
    }
    return i < this.text.length;
  }

  private at(i: number): string {
    return this.fill(i) ? (this.text[i] as string) : "";
  }

  /** `(readline)`: the rest of the current line, as a string; EOF at the end of the input. */
  readLine(): Value {
    if (!this.fill(this.pos)) return EOF;
    let i = this.pos;
    while (this.at(i) !== "" && this.at(i) !== "\n") i++;
    const line = this.text.slice(this.pos, i);
    this.pos = this.at(i) === "\n" ? i + 1 : i;
    return str(line.replace(/\r$/, ""));
  }

  /** `(read)`: the next token's value; the rest of its line is dropped. */
  read(): Value {
    let i = this.pos;
    while (SPACE.test(this.at(i))) i++;
    if (this.at(i) === "") {
      this.pos = i;
      return EOF;
    }
    const start = i;
    let value: Atom;
    if (this.at(i) === '"') {
      i++;
      let out = "";
      while (this.at(i) !== "" && this.at(i) !== '"') {
        if (this.at(i) === "\\") i++;
        out += this.at(i);
        i++;
      }
      i++;
      value = str(out);
    } else if (this.at(i) === "(" || this.at(i) === ")") {
      value = this.at(i);
      i++;
    } else {
      i++;
      while (this.at(i) !== "" && !ENDS.test(this.at(i))) i++;
      const form = readForms(this.text.slice(start, i))[0];
      value = form?.type === "atom" ? form.value : this.text.slice(start, i);
    }
    this.pos = i;
    this.dropLine();
    return value;
  }

  /** `(read-number)`: a number, or the string `*** READ ERROR ***` for anything else. */
  readNumber(): Value {
    const v = this.read();
    if (v === EOF || isNumber(v)) return v;
    return str("*** READ ERROR ***");
  }

  private dropLine(): void {
    let i = this.pos;
    while (this.at(i) !== "" && this.at(i) !== "\n") i++;
    this.pos = this.at(i) === "\n" ? i + 1 : i;
  }
}

/**
 * CLIPS's pretty-print buffer and a token reader over a parsed form, the two pieces the printer
 * (`pp-*.ts`) is built on.
 *
 * CLIPS does not format a construct after parsing it: its parsers write the construct's text
 * while they read it (pprint.c). Each token read is appended; a parser appends spaces and line
 * breaks between tokens and can take back the last two things it appended (`PPBackup`). The
 * printer replays that process over Keel's parsed form, so `ppdefrule` and the `ERROR:` echo of
 * a construct that fails to parse come out as CLIPS prints them. A reader given a limit stops
 * (throws {@link PPStop}) before the token where the parse failed, leaving the text CLIPS had
 * written when it gave up.
 */
import type { SAtom, SNode } from "./reader.js";
import { formatFloat } from "./values.js";

/** Thrown by a reader past its limit (or on a form the printer cannot follow): stop printing. */
export class PPStop extends Error {}

/** One token: a parenthesis or an atom. */
export interface PPToken {
  readonly kind: "(" | ")" | "atom";
  readonly atom?: SAtom;
  /** The token's text as CLIPS prints it. */
  readonly print: string;
}

/** CLIPS's pretty-print buffer: appended pieces, two of which can be taken back. */
export class PPBuffer {
  text = "";
  /** The indentation a line break carries. */
  depth = 0;
  private once = 0;
  private twice = 0;

  save(piece: string): void {
    this.twice = this.once;
    this.once = this.text.length;
    this.text += piece;
  }

  /** Takes back the last piece (only the two most recent can be taken back, as in CLIPS). */
  backup(): void {
    this.text = this.text.slice(0, this.once);
    this.once = this.twice;
  }

  /** A line break and the current indentation. */
  cr(): void {
    this.save(`\n${" ".repeat(this.depth)}`);
  }
}

/** How CLIPS prints an atom's token: numbers normalised, strings quoted and escaped. */
export function tokenText(a: SAtom): string {
  switch (a.kind) {
    case "string":
      return `"${a.text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
    case "integer":
      return String(a.value);
    case "float":
      return formatFloat(Number(a.text));
    case "sfvar":
      return `?${a.text}`;
    case "mfvar":
      return `$?${a.text}`;
    case "gvar":
      return `?*${a.text}*`;
    default:
      return a.text;
  }
}

function flatten(node: SNode, out: PPToken[]): void {
  if (node.type === "atom") {
    out.push({ kind: "atom", atom: node, print: tokenText(node) });
    return;
  }
  out.push({ kind: "(", print: "(" });
  for (const item of node.items) flatten(item, out);
  out.push({ kind: ")", print: ")" });
}

/** Reads a form's tokens one at a time, appending each to the buffer as CLIPS's scanner does. */
export class PPReader {
  readonly buf = new PPBuffer();
  private readonly tokens: PPToken[] = [];
  private i = 0;

  /** `limit`: the number of tokens read when the parse failed (the failing token included). */
  constructor(
    form: SNode,
    private readonly limit = Number.POSITIVE_INFINITY,
  ) {
    flatten(form, this.tokens);
  }

  /** Reads the next token and appends it. */
  get(): PPToken {
    const t = this.tokens[this.i++];
    if (t === undefined) throw new PPStop();
    this.buf.save(t.print);
    // CLIPS found the error right after reading this token.
    if (this.i >= this.limit) throw new PPStop();
    return t;
  }

  /** Reads the next token without appending it (what CLIPS's parser wrote itself). */
  skip(): PPToken {
    const t = this.tokens[this.i++];
    if (t === undefined) throw new PPStop();
    return t;
  }

  /** The next token, not read. */
  peek(): PPToken | undefined {
    return this.tokens[this.i];
  }

  save(piece: string): void {
    this.buf.save(piece);
  }

  backup(): void {
    this.buf.backup();
  }

  cr(): void {
    this.buf.cr();
  }
}

/** True for an atom token that is the symbol `text`. */
export function isSymbol(t: PPToken | undefined, text?: string): boolean {
  return (
    t?.kind === "atom" && t.atom?.kind === "symbol" && (text === undefined || t.atom.text === text)
  );
}

/**
 * The pretty-print side of CLIPS's rule left-hand-side parser (rulelhs.c, factlhs.c,
 * tmpltlhs.c): conditional elements one per line at depth 3, connected CEs five columns in.
 */
import { atomOrExpression, function1 } from "./pp-actions.js";
import { isSymbol, type PPReader, PPStop, type PPToken } from "./pp-reader.js";

const CONNECTED = new Set(["and", "or", "not", "exists", "forall", "logical"]);

/**
 * RuleBodyParse from the first token after the rule's name and comment (read): the CEs and `=>`.
 * Returns false when the left-hand side is empty (the token is `=>`).
 */
export function ruleBody(r: PPReader, first: PPToken): void {
  if (isSymbol(first, "=>")) return;
  lhsPattern(r, first, true);
  r.cr();
  groupPatterns(r, "=>");
}

/** GroupPatterns: CEs one per line until `terminator` (`=>` or `)`). */
function groupPatterns(r: PPReader, terminator: "=>" | ")"): void {
  for (;;) {
    const t = r.get();
    if (terminator === ")" ? t.kind === ")" : isSymbol(t, "=>")) {
      r.backup();
      r.backup();
      if (terminator === "=>") r.cr();
      r.save(terminator);
      return;
    }
    lhsPattern(r, t, false);
    r.cr();
  }
}

/** LHSPattern with its first token read. */
function lhsPattern(r: PPReader, t: PPToken, allowDeclare: boolean): void {
  if (t.kind === "atom" && t.atom?.kind === "sfvar") {
    r.save(" ");
    if (!isSymbol(r.get(), "<-")) throw new PPStop();
    r.save(" ");
    if (r.get().kind !== "(") throw new PPStop();
    pattern(r, r.get());
    return;
  }
  if (t.kind !== "(") throw new PPStop();
  const head = r.get();
  if (!isSymbol(head)) throw new PPStop();
  const name = head.print;
  if (allowDeclare && name === "declare") declaration(r);
  else if (name === "test") {
    r.save(" ");
    if (r.get().kind !== "(") throw new PPStop();
    function1(r);
    if (r.get().kind !== ")") throw new PPStop();
  } else if (CONNECTED.has(name)) connected(r, name);
  else pattern(r, head);
}

function connected(r: PPReader, name: string): void {
  r.buf.depth += 5;
  if (name === "or") r.save("  ");
  else if (name === "and" || name === "not") r.save(" ");
  else r.cr();
  groupPatterns(r, ")");
  r.buf.depth -= 5;
}

function declaration(r: PPReader): void {
  r.save(" ");
  if (r.get().kind !== "(") throw new PPStop();
  for (;;) {
    const prop = r.get();
    r.save(" ");
    if (isSymbol(prop, "salience")) atomOrExpression(r);
    else r.get();
    const close = r.peek();
    if (close !== undefined && close.kind !== ")") {
      // CLIPS backs up over the token it read in place of `)` and writes it after a space.
      r.skip();
      r.save(` ${close.print}`);
      throw new PPStop();
    }
    r.get();
    const t = r.get();
    if (t.kind === ")") return;
    if (t.kind !== "(") throw new PPStop();
    r.backup();
    r.save(" (");
  }
}

/**
 * A pattern CE after its relation name (read): fields separated by one space; a template's
 * slots `(name constraint…)` the same way one level down.
 */
function pattern(r: PPReader, head: PPToken): void {
  if (isSymbol(head, "object")) {
    objectPattern(r);
    return;
  }
  for (;;) {
    r.save(" ");
    const t = r.get();
    if (t.kind === ")") {
      r.backup();
      r.backup();
      r.save(")");
      return;
    }
    if (t.kind === "(") pattern(r, r.get());
    else constraint(r, t);
  }
}

/**
 * An object pattern after `object` (objrtbld.c ObjectLHSParse): each restriction after the first
 * on its own line, seven columns deeper than the pattern; CLIPS takes back the last line break.
 */
function objectPattern(r: PPReader): void {
  r.buf.depth += 7;
  try {
    let t = r.get();
    let restricted = false;
    while (t.kind !== ")") {
      restricted = true;
      r.backup();
      r.save(" ");
      r.save(t.print);
      if (t.kind !== "(") throw new PPStop();
      pattern(r, r.get());
      r.cr();
      t = r.get();
    }
    if (restricted) {
      r.backup();
      r.backup();
      r.save(")");
    }
  } finally {
    r.buf.depth -= 7;
  }
}

/** One field's constraint: terms joined by `&` and `|` with no spaces, `~`, `:(…)`, `=(…)`. */
function constraint(r: PPReader, first: PPToken): void {
  let t = first;
  for (;;) {
    if (t.kind === "atom" && t.atom?.kind === "not") t = r.get();
    if ((isSymbol(t, ":") || isSymbol(t, "=")) && r.peek()?.kind === "(") {
      r.get();
      function1(r);
    } else if (t.kind !== "atom") throw new PPStop();
    const next = r.peek();
    if (next?.kind === "atom" && (next.atom?.kind === "and" || next.atom?.kind === "or")) {
      r.get();
      t = r.get();
    } else return;
  }
}

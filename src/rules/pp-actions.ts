/**
 * The pretty-print side of CLIPS's expression and action parsers (exprnpsr.c, prcdrpsr.c,
 * multifun.c, factrhs.c, the query parsers): what each writes into the buffer between the
 * tokens it reads. Right-hand sides, deffunction bodies and test CEs print through here.
 */
import { isSymbol, type PPReader, PPStop, type PPToken } from "./pp-reader.js";

/**
 * GroupActions: actions one per line at the current depth until `)` or `endWord`, which is
 * returned (read). The caller takes back the last line break.
 */
export function groupActions(r: PPReader, endWord?: string, first?: PPToken): PPToken {
  let t = first ?? r.get();
  for (;;) {
    if (endWord !== undefined && isSymbol(t, endWord)) return t;
    if (t.kind === ")") return t;
    if (t.kind === "(") function1(r);
    r.cr();
    t = r.get();
  }
}

/** After `(`: the function name and its arguments. */
export function function1(r: PPReader): void {
  const name = r.get();
  if (name.kind !== "atom") throw new PPStop();
  function2(r, name.print);
}

/** ParseAtomOrExpression: a constant, a variable or a call (`first` already read, if given). */
export function atomOrExpression(r: PPReader, first?: PPToken): void {
  const t = first ?? r.get();
  if (t.kind === "(") function1(r);
  else if (t.kind === ")") throw new PPStop();
}

/** CollectArguments: ` arg` each, then `)`. */
export function collectArguments(r: PPReader): void {
  for (;;) {
    r.save(" ");
    const t = r.get();
    if (t.kind === ")") {
      closeWith(r, ")");
      return;
    }
    if (t.kind === "(") function1(r);
  }
}

/** Takes back the last two pieces (a line break or space and the `)` just read) and closes. */
function closeWith(r: PPReader, text: string): void {
  r.backup();
  r.backup();
  r.save(text);
}

/** A body of actions one indentation step in, closed by `)`. */
function indentedBody(r: PPReader, steps: number, first?: PPToken): void {
  r.buf.depth += steps;
  r.cr();
  if (first) r.save(first.print);
  const end = groupActions(r);
  r.buf.depth -= steps;
  closeWith(r, end.print);
}

/** The functions CLIPS parses with a parser of their own, by name. */
const SPECIAL: Record<string, (r: PPReader) => void> = {
  if: ifParse,
  while: (r) => {
    r.save(" ");
    atomOrExpression(r);
    doOrBody(r);
  },
  "loop-for-count": loopForCount,
  progn: (r) => indentedBody(r, 3),
  switch: switchParse,
  progn$: prognDollar,
  foreach: (r) => {
    r.save(" ");
    r.get();
    r.save(" ");
    atomOrExpression(r);
    indentedBody(r, 3);
  },
  assert: assertParse,
  "do-for-fact": queryAction,
  "do-for-all-facts": queryAction,
  "delayed-do-for-all-facts": queryAction,
  "do-for-instance": queryAction,
  "do-for-all-instances": queryAction,
  "delayed-do-for-all-instances": queryAction,
  "any-factp": queryAction,
  "find-fact": queryAction,
  "find-all-facts": queryAction,
  "any-instancep": queryAction,
  "find-instance": queryAction,
  "find-all-instances": queryAction,
  ...Object.fromEntries(
    ["make-instance", "active-make-instance"].map((n) => [
      n,
      (r: PPReader) => instanceCall(r, "make"),
    ]),
  ),
  ...Object.fromEntries(
    [
      "initialize-instance",
      "active-initialize-instance",
      "modify-instance",
      "active-modify-instance",
      "message-modify-instance",
      "active-message-modify-instance",
    ].map((n) => [n, (r: PPReader) => instanceCall(r, "change")]),
  ),
  ...Object.fromEntries(
    [
      "duplicate-instance",
      "active-duplicate-instance",
      "message-duplicate-instance",
      "active-message-duplicate-instance",
    ].map((n) => [n, (r: PPReader) => instanceCall(r, "duplicate")]),
  ),
};

/** Function2Parse: the special parsers CLIPS has, else plain arguments. */
export function function2(r: PPReader, name: string): void {
  (SPECIAL[name] ?? collectArguments)(r);
}

/** After the condition of while/loop-for-count: ` do` or a line break, then the body. */
function doOrBody(r: PPReader): void {
  const t = r.get();
  if (isSymbol(t, "do")) {
    r.backup();
    r.save(" ");
    r.save(t.print);
    indentedBody(r, 3);
  } else if (t.kind === "(") {
    r.backup();
    r.buf.depth += 3;
    r.cr();
    r.save(t.print);
    function1(r);
    r.cr();
    const end = groupActions(r);
    r.buf.depth -= 3;
    closeWith(r, end.print);
  } else throw new PPStop();
}

function ifParse(r: PPReader): void {
  r.save(" ");
  atomOrExpression(r);
  r.buf.depth += 3;
  r.cr();
  const then = r.get();
  if (!isSymbol(then, "then")) throw new PPStop();
  r.cr();
  const end = groupActions(r, "else");
  if (end.kind === ")") {
    r.buf.depth -= 3;
    closeWith(r, end.print);
    return;
  }
  r.cr();
  groupActions(r);
  closeWith(r, ")");
  r.buf.depth -= 3;
}

/**
 * The head shared by `loop-for-count` and `progn$`: an expression, or `(?var …)` whose rest
 * `rangeTail` reads after the variable and the first expression, or a function call.
 */
function loopHead(r: PPReader, rangeTail: (r: PPReader) => void): void {
  r.save(" ");
  let t = r.get();
  if (t.kind !== "(") atomOrExpression(r, t);
  else {
    t = r.get();
    if (t.kind === "atom" && t.atom?.kind === "sfvar") {
      r.save(" ");
      atomOrExpression(r);
      rangeTail(r);
      r.save(" ");
    } else if (t.kind === "atom") function2(r, t.print);
    else throw new PPStop();
  }
}

function loopForCount(r: PPReader): void {
  loopHead(r, () => {
    r.save(" ");
    const t = r.get();
    if (t.kind === ")") closeWith(r, t.print);
    else {
      atomOrExpression(r, t);
      if (r.get().kind !== ")") throw new PPStop();
    }
  });
  doOrBody(r);
}

function switchParse(r: PPReader): void {
  r.buf.depth += 3;
  r.save(" ");
  atomOrExpression(r);
  let t = r.get();
  while (t.kind !== ")") {
    r.backup();
    r.cr();
    r.save(t.print);
    if (t.kind !== "(") throw new PPStop();
    const kind = r.get();
    r.save(" ");
    if (isSymbol(kind, "case")) {
      atomOrExpression(r);
      r.save(" ");
      if (!isSymbol(r.get(), "then")) throw new PPStop();
    } else if (!isSymbol(kind, "default")) throw new PPStop();
    indentedBody(r, 3);
    t = r.get();
  }
  r.buf.depth -= 3;
}

function prognDollar(r: PPReader): void {
  loopHead(r, () => {
    const close = r.get();
    if (close.kind !== ")") throw new PPStop();
    r.backup();
    r.save(close.print);
  });
  indentedBody(r, 3);
}

/** assert: the facts one per line, aligned after `(assert `. */
function assertParse(r: PPReader): void {
  r.save(" ");
  r.buf.depth += 8;
  let t = r.get();
  while (t.kind === "(") {
    rhsPattern(r);
    r.cr();
    t = r.get();
  }
  r.buf.depth -= 8;
  if (t.kind !== ")") throw new PPStop();
  closeWith(r, ")");
}

/** A fact on a right-hand side, `(` read: its fields (and slots) separated by spaces. */
export function rhsPattern(r: PPReader): void {
  r.get();
  rhsFields(r, true);
}

/**
 * A fact's or slot's values through its `)`. `=` then a call is a return-value field, which
 * CLIPS writes with no space: `=(+ 1 2)`.
 */
function rhsFields(r: PPReader, slots: boolean): void {
  for (;;) {
    r.save(" ");
    const t = r.get();
    if (t.kind === ")") {
      closeWith(r, t.print);
      return;
    }
    if (t.kind === "atom" && t.print === "=" && r.peek()?.kind === "(") {
      r.get();
      function1(r);
    } else if (t.kind === "(" && slots) {
      // A slot `(name value…)`.
      r.get();
      rhsFields(r, false);
    } else if (t.kind === "(") function1(r);
  }
}

/** The query functions: the member variable list, then query and actions one per line. */
function queryAction(r: PPReader): void {
  r.save(" ");
  skipBalanced(r);
  indentedBody(r, 3);
}

/** Reads one balanced list (the query's variable list) as it is written. */
function skipBalanced(r: PPReader): void {
  if (r.get().kind !== "(") throw new PPStop();
  plainList(r);
}

/** A list (its `(` read) printed as written, one space between items. */
export function plainList(r: PPReader): void {
  let first = true;
  for (;;) {
    const t = r.peek();
    if (t === undefined) throw new PPStop();
    if (t.kind === ")") {
      r.get();
      return;
    }
    if (!first) r.save(" ");
    first = false;
    if (r.get().kind === "(") plainList(r);
  }
}

/**
 * make-instance and its kin (inspsr.c ParseInitializeInstance): the name or target, `of CLASS`
 * (`to NAME` for a duplicate), then each slot override on a line of its own, three steps in.
 */
function instanceCall(r: PPReader, kind: "make" | "change" | "duplicate"): void {
  r.buf.depth += 3;
  r.save(" ");
  const first = r.get();
  atomOrExpression(r, first);
  r.save(" ");
  if (kind === "make") {
    // `(make-instance of CLASS …)` names no instance; otherwise `of` comes next.
    if (!isSymbol(first, "of") && !isSymbol(r.get(), "of")) throw new PPStop();
    if (!isSymbol(first, "of")) r.save(" ");
    atomOrExpression(r);
  }
  r.cr();
  let t = r.get();
  if (kind === "duplicate" && isSymbol(t, "to")) {
    r.backup();
    r.backup();
    r.save(t.print);
    r.save(" ");
    atomOrExpression(r);
    r.cr();
    t = r.get();
  }
  while (t.kind === "(") {
    atomOrExpression(r);
    collectArguments(r);
    r.cr();
    t = r.get();
  }
  if (t.kind !== ")") throw new PPStop();
  closeWith(r, t.print);
  r.buf.depth -= 3;
}

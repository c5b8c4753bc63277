import { describe, expect, it } from "vitest";
import { RuleEngine, runBatch } from "../../../src/rules/index.js";

/** Outputs recorded from CLIPS 6.30 (`clips -f2 file.clp` with the same standard input). */
describe("read, readline and read-number take standard input as clips -f2 does", () => {
  const program = [
    "(defrule go =>",
    '(printout t "[" (read) "]" crlf)',
    '(printout t "[" (read) "]" crlf)',
    '(printout t "[" (readline) "]" crlf)',
    "(bind ?w (read))",
    '(printout t "[" ?w "] " (type ?w) crlf)',
    "(bind ?w (read-number))",
    '(printout t "[" ?w "] " (type ?w) crlf)',
    "(bind ?w (readline))",
    '(printout t "[" ?w "] " (type ?w) crlf))',
    "(reset)",
    "(run)",
    "(exit)",
  ].join("\n");

  it("reads a token and drops the rest of its line; readline takes a line; EOF at the end", () => {
    const input = 'foo bar baz\nline two here\n"str ing" x\n 42 y\n\n(abc)\n';
    expect(runBatch(program, { input }).output).toBe(
      '[foo]\n[line]\n["str ing" x]\n[42] INTEGER\n[*** READ ERROR ***] STRING\n[EOF] SYMBOL\n',
    );
  });

  it("answers EOF when there is no input", () => {
    expect(runBatch(program).output).toBe(
      "[EOF]\n[EOF]\n[EOF]\n[EOF] SYMBOL\n[EOF] SYMBOL\n[EOF] SYMBOL\n",
    );
  });
});

describe("deffunctions, defglobals and modules in the engine's state", () => {
  it("a snapshot keeps the globals' values and the focus stack", () => {
    const engine = new RuleEngine();
    engine.load(
      [
        // WORK sees MAIN's items only through its import (as in CLIPS, an ordered `(item …)`
        // in WORK would be of WORK's own implied deftemplate).
        "(defmodule MAIN (export ?ALL))",
        "(deftemplate MAIN::item (slot v))",
        "(defglobal ?*n* = 0)",
        "(deffunction bump (?by) (bind ?*n* (+ ?*n* ?by)))",
        "(defrule MAIN::go (start) => (focus WORK))",
        "(defmodule WORK (import MAIN ?ALL))",
        "(defrule WORK::count (item (v ?x)) => (bump ?x) (halt))",
      ].join("\n"),
    );
    engine.reset();
    engine.assert("(item (v 5))");
    engine.assert("(item (v 7))");
    engine.assert("(start)");
    expect(engine.run().map((f) => f.rule)).toEqual(["go", "count"]);
    const saved = engine.snapshot();
    expect(saved.globals).toEqual({ n: 7 });
    expect(saved.focus).toEqual(["MAIN", "WORK"]);
    const other = new RuleEngine();
    other.restore(saved);
    expect(other.run().map((f) => f.rule)).toEqual(["count"]);
    expect(other.snapshot().globals).toEqual({ n: 12 });
    other.reset();
    expect(other.snapshot().globals).toEqual({ n: 0 });
  });

  it("refuses an undefined global and a deffunction called with the wrong arity", () => {
    expect(runBatch("(printout t ?*nope* crlf)\n(exit)").error?.details.clips).toBe(
      "[GLOBLPSR1] \nGlobal variable ?*nope* was referenced, but is not defined.",
    );
    const r = runBatch("(deffunction two (?a ?b) (+ ?a ?b))\n(printout t (two 1) crlf)\n(exit)");
    expect(r.error?.details.clips).toBe("[ARGACCES4] Function two expected exactly 2 argument(s)");
  });
});

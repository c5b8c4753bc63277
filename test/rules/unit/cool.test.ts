import { describe, expect, it } from "vitest";
import { RuleEngine, runBatch } from "../../../src/rules/index.js";
import { readForms } from "../../../src/rules/reader.js";

/**
 * COOL, generic functions and the query functions: the error paths. (What they print when they
 * work is compared with CLIPS 6.30 in the differential corpus: cool-classes-handlers,
 * generic-functions, fact-instance-queries.)
 */
const CLASSES = [
  "(defclass A (is-a USER) (slot x (default 1)))",
  "(defclass ABS (is-a USER) (role abstract))",
  "(defmessage-handler A twice () (* 2 ?self:x))",
].join("\n");

function failure(program: string): {
  code: string | undefined;
  message: string;
  clips: unknown;
  output: string;
} {
  const r = runBatch(`${CLASSES}\n${program}\n(exit)`, { onError: "stop" });
  expect(r.error, "the program fails").toBeDefined();
  const details = (r.error as { details?: { clips?: unknown } }).details;
  return {
    code: r.error?.code,
    message: r.error?.message ?? "",
    clips: details?.clips,
    output: r.output,
  };
}

describe("COOL error paths stop the batch with CLIPS's message", () => {
  it("make-instance of an unknown class", () => {
    const f = failure("(make-instance a1 of NOPE)");
    expect(f.code).toBe("RULES_RUNTIME");
    expect(f.clips).toBe("[PRNTUTIL1] Unable to find class NOPE.");
  });

  it("make-instance of an abstract class, directly or by an inherited role", () => {
    expect(failure("(make-instance a1 of ABS)").clips).toBe(
      "[INSMNGR3] Cannot create instances of abstract class ABS.",
    );
    expect(failure("(defclass SUB (is-a ABS))\n(make-instance s of SUB)").clips).toBe(
      "[INSMNGR3] Cannot create instances of abstract class SUB.",
    );
  });

  it("send to an instance that does not exist (or was deleted)", () => {
    const f = failure(
      '(make-instance a1 of A)\n(send [a1] delete)\n(printout t "gone" crlf)\n(send [a1] twice)',
    );
    expect(f.output).toBe("gone\n");
    expect(f.clips).toBe("[MSGPASS2] No such instance a1 in function send.");
  });

  it("a message no handler answers", () => {
    expect(failure("(make-instance a1 of A)\n(send [a1] fly)").clips).toBe(
      "[MSGFUN1] No applicable primary message-handlers found for fly.",
    );
  });

  it("a slot the instance does not have", () => {
    const f = failure(
      "(defmessage-handler A bad () ?self:nope)\n(make-instance a1 of A)\n(send [a1] bad)",
    );
    expect(f.message).toContain("has no slot nope");
  });

  it("a superclass that is not defined yet", () => {
    expect(failure("(defclass B (is-a MISSING))").clips).toBe(
      "[INHERPSR3] A class must be defined after all its superclasses.",
    );
  });

  it("a generic function no method of which applies", () => {
    const f = failure("(defmethod g ((?x INTEGER)) ?x)\n(printout t (g 1) crlf)\n(g abc)");
    expect(f.output).toBe("1\n");
    expect(f.clips).toBe("[GENRCEXE1] No applicable methods for g.");
  });

  it("call-next-handler outside a handler, call-next-method outside a method", () => {
    expect(failure("(call-next-handler)").message).toContain(
      "only allowed inside a message-handler",
    );
    expect(failure("(call-next-method)").message).toContain("only allowed inside a method");
  });
});

describe("COOL in the engine", () => {
  it("reset deletes instances and makes the definstances again; clear forgets the classes", () => {
    const engine = new RuleEngine();
    engine.load(`${CLASSES}\n(definstances start (a1 of A (x 5)))`);
    const run = (text: string) => engine.evalTopLevel(readOne(text), new Map());
    engine.reset();
    expect(run("(send [a1] twice)")).toBe(10);
    run("(make-instance a2 of A)");
    expect(run("(instance-existp [a2])")).toBe("TRUE");
    engine.reset();
    expect(run("(instance-existp [a2])")).toBe("FALSE");
    expect(run("(instance-existp [a1])")).toBe("TRUE");
    engine.clear();
    expect(run("(class-existp A)")).toBe("FALSE");
  });
});

describe("COOL in snapshots", () => {
  it("restore puts back the instances, their slots, gensym's counter and instance names in facts", () => {
    const engine = new RuleEngine();
    engine.load(
      `${CLASSES}\n(deftemplate owns (slot who))\n(defrule note (owns (who ?w)) => (printout t (send ?w twice) crlf))`,
    );
    engine.reset();
    const run = (text: string) => engine.evalTopLevel(readOne(text), new Map());
    run("(make-instance a1 of A (x 21))");
    run("(make-instance of A)");
    run("(assert (owns (who [a1])))");
    const saved = JSON.parse(JSON.stringify(engine.snapshot()));
    const copy = new RuleEngine();
    copy.restore(saved);
    const again = (text: string) => copy.evalTopLevel(readOne(text), new Map());
    expect(again("(send [a1] twice)")).toBe(42);
    expect(again("(instance-existp [gen1])")).toBe("TRUE");
    expect(again("(gensym)")).toBe("gen2");
    copy.run();
    expect(copy.output).toBe("42\n");
  });
});

describe("class defaults mode and shared slots in snapshots", () => {
  it("a class defined in conservation mode stays abstract, non-reactive and without accessors after restore", () => {
    const engine = new RuleEngine();
    const run = (text: string) => engine.evalTopLevel(readOne(text), new Map());
    run("(set-class-defaults-mode conservation)");
    engine.load("(defclass C (is-a USER) (slot x))");
    run("(set-class-defaults-mode convenience)");
    engine.load("(defclass V (is-a USER) (slot x))");
    const copy = new RuleEngine();
    copy.restore(JSON.parse(JSON.stringify(engine.snapshot())));
    const again = (text: string) => copy.evalTopLevel(readOne(text), new Map());
    expect(again("(class-abstractp C)")).toBe("TRUE");
    expect(again("(class-abstractp V)")).toBe("FALSE");
    expect(again("(message-handler-existp C get-x)")).toBe("FALSE");
    expect(again("(get-class-defaults-mode)")).toBe("convenience");
  });

  it("a shared slot's value survives a restore and reaches the instances made after it", () => {
    const engine = new RuleEngine();
    engine.load("(defclass S (is-a USER) (slot n (storage shared) (default 1)))");
    engine.reset();
    const run = (text: string) => engine.evalTopLevel(readOne(text), new Map());
    run("(make-instance a of S)");
    run("(send [a] put-n 7)");
    const copy = new RuleEngine();
    copy.restore(JSON.parse(JSON.stringify(engine.snapshot())));
    const again = (text: string) => copy.evalTopLevel(readOne(text), new Map());
    again("(make-instance b of S)");
    expect(again("(send [b] get-n)")).toBe(7);
    again("(send [b] put-n 9)");
    expect(again("(send [a] get-n)")).toBe(9);
  });
});

function readOne(text: string) {
  const form = readForms(text)[0];
  if (!form) throw new Error("no form");
  return form;
}

describe("reset inside reset", () => {
  it("a deffacts field =(reset) does nothing (CLIPS 6.30 prints f-0 (initial-fact), f-1 (fact1))", () => {
    const r = runBatch("(deffacts first (fact1 =(reset)))\n(reset)\n(facts)\n(exit)");
    expect(r.error).toBeUndefined();
    expect(r.output).toBe("f-0     (initial-fact)\nf-1     (fact1)\nFor a total of 2 facts.\n");
  });
});

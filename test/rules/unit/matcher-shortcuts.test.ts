import { describe, expect, it } from "vitest";
import { runBatch } from "../../../src/rules/index.js";

/**
 * The matcher's shortcuts (issue 19, speed) keep CLIPS's output: watch items checked only when
 * something is watched, the agenda's last salience group, joins on two or three variables read
 * without a loop, hashed memories at half an entry per bucket. Outputs from CLIPS 6.30 `clips -f2`.
 */
describe("matcher shortcuts", () => {
  it("traces what is watched after watch and unwatch, by item and by name", () => {
    const r = runBatch(
      [
        '(defrule r1 (a ?x) => (printout t "r1 " ?x crlf))',
        '(defrule r2 (b ?x) => (printout t "r2 " ?x crlf))',
        "(assert (a 1))",
        "(watch activations)",
        "(assert (a 2))",
        "(unwatch activations)",
        "(assert (a 3))",
        "(watch rules r2)",
        "(watch facts)",
        "(assert (b 1))",
        "(unwatch all)",
        "(assert (b 2))",
        "(watch all)",
        "(unwatch all)",
        "(watch compilations)",
        "(watch rules r2)",
        "(assert (a 4))",
        "(run)",
        "(exit)",
      ].join("\n"),
    );
    expect(r.errors).toEqual([]);
    expect(r.output).toBe(
      "==> Activation 0      r1: f-2\n==> f-4     (b 1)\nr1 4\nFIRE    2 r2: f-5\nr2 2\nFIRE    3 r2: f-4\nr2 1\nr1 3\nr1 2\nr1 1\n",
    );
  });

  it("joins on one to four variables, in any order, and fires by salience", () => {
    const r = runBatch(
      [
        "(deftemplate p (slot a) (slot b) (slot c) (slot d))",
        '(defrule two (p (a ?x) (b ?y)) (q ?y ?x) => (printout t "two " ?x " " ?y crlf))',
        '(defrule three (p (a ?x) (b ?y) (c ?z)) (r ?z ?x ?y) => (printout t "three " ?x " " ?y " " ?z crlf))',
        '(defrule three-split (q ?y ?x) (p (a ?x) (c ?z)) (r ?z ?x ?y) => (printout t "split " ?x " " ?y " " ?z crlf))',
        '(defrule four (p (a ?x) (b ?y) (c ?z) (d ?w)) (s ?w ?z ?y ?x) => (printout t "four " ?x ?y ?z ?w crlf))',
        '(defrule neg2 (declare (salience 5)) (p (a ?x) (b ?y)) (not (q ?y ?x)) => (printout t "neg2 " ?x " " ?y crlf))',
        '(defrule low (declare (salience -5)) (p (a ?x)) => (printout t "low " ?x crlf))',
        '(assert (p (a 1) (b 2) (c 3) (d 4)) (p (a 2) (b 1) (c 3) (d 5)) (p (a x) (b "y") (c 3.5) (d z)))',
        '(assert (q 2 1) (q "y" x) (q 1 1))',
        '(assert (r 3 1 2) (r 3 2 1) (r 3.5 x "y") (r 3 2 2))',
        '(assert (s 4 3 2 1) (s 5 3 1 2) (s z 3.5 "y" x))',
        "(run)",
        "(exit)",
      ].join("\n"),
    );
    expect(r.errors).toEqual([]);
    expect(r.output).toBe(
      "neg2 2 1\nfour xy3.5z\nfour 2135\nfour 1234\nthree x y 3.5\nsplit x y 3.5\nthree 2 1 3\nthree 1 2 3\nsplit 1 2 3\ntwo x y\ntwo 1 2\nlow x\nlow 2\nlow 1\n",
    );
  });

  it("finds every match in memories grown past hundreds of entries", () => {
    const r = runBatch(
      [
        "(defglobal ?*hits* = 0)",
        "(defrule pair (n ?x ?y) (m ?y ?x) (not (k ?x ?y)) => (bind ?*hits* (+ ?*hits* 1)))",
        "(loop-for-count (?i 1 300) (assert (n ?i (* 2 ?i)) (m (* 2 ?i) ?i)))",
        "(loop-for-count (?i 1 300) (if (= (mod ?i 7) 0) then (assert (k ?i (* 2 ?i)))))",
        "(run)",
        "(printout t ?*hits* crlf)",
        "(exit)",
      ].join("\n"),
    );
    expect(r.errors).toEqual([]);
    expect(r.output).toBe("258\n");
  });
});

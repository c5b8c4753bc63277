/**
 * Miss Manners, the classic production-system benchmark, written for this suite from its
 * well-known description: seat N guests around a table so that neighbours alternate in sex and
 * share a hobby. Rules extend a partial seating one guest at a time (find-seating), copy the
 * path of the parent seating (make-path), check for completion, then print the final seating.
 * The stress is in the joins of find-seating and the negated `path`/`chosen` patterns.
 */
import { Rng } from "../../test/rules/differential/generate.js";

const TEMPLATES = [
  "(deftemplate guest (slot name) (slot sex) (slot hobby))",
  "(deftemplate last-seat (slot seat))",
  "(deftemplate seating (slot seat1) (slot name1) (slot name2) (slot seat2) (slot id) (slot pid) (slot path-done))",
  "(deftemplate context (slot state))",
  "(deftemplate path (slot id) (slot name) (slot seat))",
  "(deftemplate chosen (slot id) (slot name) (slot hobby))",
  "(deftemplate counter (slot c))",
];

const RULES = [
  '(defrule assign-first-seat ?ctx <- (context (state start)) (guest (name ?n)) ?cnt <- (counter (c ?c)) => (assert (seating (seat1 1) (name1 ?n) (name2 ?n) (seat2 1) (id ?c) (pid 0) (path-done yes))) (assert (path (id ?c) (name ?n) (seat 1))) (modify ?cnt (c (+ ?c 1))) (printout t "seat 1 " ?n crlf) (modify ?ctx (state assign)))',
  '(defrule find-seating ?ctx <- (context (state assign)) (seating (seat2 ?seat2) (name2 ?n2) (id ?id) (path-done yes)) (guest (name ?n2) (sex ?s1) (hobby ?h1)) (guest (name ?g2) (sex ~?s1) (hobby ?h1)) ?cnt <- (counter (c ?c)) (not (path (id ?id) (name ?g2))) (not (chosen (id ?id) (name ?g2) (hobby ?h1))) => (assert (seating (seat1 ?seat2) (name1 ?n2) (name2 ?g2) (seat2 (+ ?seat2 1)) (id ?c) (pid ?id) (path-done no))) (assert (path (id ?c) (name ?g2) (seat (+ ?seat2 1)))) (assert (chosen (id ?id) (name ?g2) (hobby ?h1))) (modify ?cnt (c (+ ?c 1))) (printout t "seat " (+ ?seat2 1) " " ?g2 " next to " ?n2 " hobby " ?h1 crlf) (modify ?ctx (state make-path)))',
  "(defrule make-path (context (state make-path)) (seating (id ?id) (pid ?pid) (path-done no)) (path (id ?pid) (name ?n1) (seat ?s)) (not (path (id ?id) (name ?n1))) => (assert (path (id ?id) (name ?n1) (seat ?s))))",
  "(defrule path-done (declare (salience -1)) ?ctx <- (context (state make-path)) ?s <- (seating (path-done no)) => (modify ?s (path-done yes)) (modify ?ctx (state check)))",
  '(defrule are-we-done ?ctx <- (context (state check)) (last-seat (seat ?l)) (seating (seat2 ?l)) => (printout t "all seated" crlf) (modify ?ctx (state print)))',
  "(defrule keep-going (declare (salience -1)) ?ctx <- (context (state check)) => (modify ?ctx (state assign)))",
  '(defrule print-results (context (state print)) (seating (id ?id) (seat2 ?s2)) (last-seat (seat ?s2)) ?p <- (path (id ?id) (name ?n) (seat ?s)) => (retract ?p) (printout t ?n " in seat " ?s crlf))',
  "(defrule all-done (declare (salience -1)) (context (state print)) => (halt))",
];

/**
 * Guest facts for `guests` people (an even number): sexes alternate, and each guest has two or
 * three of three hobbies, so any two guests share one and a full seating always exists.
 */
export function mannersGuests(guests: number, seed = 1): string[] {
  const rng = new Rng(seed);
  const facts: string[] = [];
  for (let index = 1; index <= guests; index++) {
    const sex = index % 2 === 1 ? "m" : "f";
    const hobbies = [1, 2, 3].filter(() => rng.chance(0.5));
    while (hobbies.length < 2) {
      const hobby = rng.int(1, 3);
      if (!hobbies.includes(hobby)) hobbies.push(hobby);
    }
    for (const hobby of hobbies.sort()) {
      facts.push(`(guest (name g${index}) (sex ${sex}) (hobby h${hobby}))`);
    }
  }
  return facts;
}

/** The whole benchmark as a batch file: one top-level form per line, ending in (exit). */
export function mannersProgram(guests: number, seed = 1): string {
  const data = [
    ...mannersGuests(guests, seed),
    `(last-seat (seat ${guests}))`,
    "(counter (c 1))",
    "(context (state start))",
  ];
  return `${[
    ...TEMPLATES,
    ...RULES,
    `(deffacts manners-data ${data.join(" ")})`,
    "(reset)",
    "(run)",
    "(exit)",
  ].join("\n")}\n`;
}

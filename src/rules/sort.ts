/**
 * `(sort <function> <value>*)`: the values (multifields spliced in) ordered by a comparison
 * function, as CLIPS 6.30's sortfun.c orders them — its merge sort, which takes the right-hand
 * value whenever `(<function> left right)` is not FALSE. A consistent "greater than" gives a
 * stable ascending sort; an inconsistent one (`+`, always true) gives CLIPS's exact order too.
 *
 * @example
 * // (sort > 4 3 (create$ 7 2)) returns (2 3 4 7); (sort str-compare a b) prints
 * // [ARGACCES5] … function name expecting two arguments, and returns FALSE
 */
import { clipsMessageText } from "./clips-messages.js";
import { flatten, typeError } from "./function-args.js";
import { type Atom, FALSE, type Value } from "./values.js";

/** What sort needs from the engine. */
export interface SortHost {
  /**
   * What `name` is: a deffunction (and whether it takes two arguments), a generic function, or
   * a built-in function (and whether it takes two); null when it names none of those.
   */
  functionKind(
    name: string,
  ): { kind: "deffunction" | "function"; takesTwo: boolean } | { kind: "generic" } | null;
  /** Calls `name` with two arguments. */
  call(name: string, a: Atom, b: Atom): Value;
  print(text: string): void;
}

/** Runs `(sort …)` on evaluated arguments. */
export function sortCommand(host: SortHost, args: readonly Value[]): Value {
  const fn = args[0];
  if (typeof fn !== "string") {
    throw typeError("sort", 1, "symbol");
  }
  // CLIPS prints these and returns FALSE without an evaluation error: a printout goes on.
  const refuse = (what: string): Value => {
    host.print(
      clipsMessageText(`[ARGACCES5] Function sort expected argument #1 to be of type ${what}`),
    );
    return FALSE;
  };
  const found = host.functionKind(fn);
  if (found === null) return refuse("function name, deffunction name, or defgeneric name");
  if (found.kind !== "generic" && !found.takesTwo) {
    return refuse(`${found.kind} name expecting two arguments`);
  }
  const list = flatten(args.slice(1));
  const temp = list.slice();
  mergeSort(list, temp, 0, list.length - 1, (a, b) => host.call(fn, a, b) !== FALSE);
  return list;
}

/** sortfun.c's DoMergeSort over list[s1..e2] (inclusive), `temp` its scratch space. */
function mergeSort(
  list: Atom[],
  temp: Atom[],
  s1: number,
  e2: number,
  swap: (a: Atom, b: Atom) => boolean,
): void {
  if (s1 >= e2) return;
  if (s1 + 1 === e2) {
    const a = list[s1] as Atom;
    const b = list[e2] as Atom;
    if (swap(a, b)) {
      list[s1] = b;
      list[e2] = a;
    }
    return;
  }
  const middle = s1 + Math.floor((e2 - s1 + 1) / 2);
  mergeSort(list, temp, s1, middle, swap);
  mergeSort(list, temp, middle + 1, e2, swap);
  let c1 = s1;
  let c2 = middle + 1;
  for (let at = s1; at <= e2; at++) {
    if (c1 > middle) temp[at] = list[c2++] as Atom;
    else if (c2 > e2) temp[at] = list[c1++] as Atom;
    else if (swap(list[c1] as Atom, list[c2] as Atom)) temp[at] = list[c2++] as Atom;
    else temp[at] = list[c1++] as Atom;
  }
  for (let at = s1; at <= e2; at++) list[at] = temp[at] as Atom;
}

/**
 * `eval` sees none of its caller's variables (CLIPS 6.30, strngfun.c): an expression that reads
 * a variable it does not itself bind (by `bind`, a query's or a loop's variable) is refused with
 * [STRNGFUN2] before anything in it runs. Globals are readable.
 *
 * @example
 * // (eval "(retract ?f1)") prints
 * // "[STRNGFUN2] Some variables could not be accessed by the eval function."
 */
import { QUERY_FUNCTIONS } from "./parse-expr.js";
import type { SNode } from "./reader.js";

/** Functions whose first argument is a list of `(?var …)` declarations. */
const DECLARING_LISTS: ReadonlySet<string> = new Set([
  "loop-for-count",
  "progn$",
  ...QUERY_FUNCTIONS,
]);

const isLocal = (n: SNode | undefined): n is SNode & { text: string } =>
  n?.type === "atom" && (n.kind === "sfvar" || n.kind === "mfvar") && !/^\*.+\*$/.test(n.text);

/** Whether `form` reads a local variable it does not bind itself. */
export function readsOuterVariables(form: SNode): boolean {
  const bound = new Set<string>();
  const read: string[] = [];
  const walk = (n: SNode): void => {
    if (isLocal(n)) {
      read.push(n.text);
      return;
    }
    if (n.type !== "list") return;
    const head = n.items[0];
    const name = head?.type === "atom" ? head.text : "";
    const first = n.items[1];
    if ((name === "bind" || name === "foreach") && isLocal(first)) bound.add(first.text);
    if (DECLARING_LISTS.has(name) && first?.type === "list") {
      // loop-for-count and progn$ declare one variable; the queries a list of them.
      const specs = first.items[0]?.type === "list" ? first.items : [first];
      for (const s of specs) {
        const v = s.type === "list" ? s.items[0] : undefined;
        if (isLocal(v)) bound.add(v.text);
      }
    }
    for (const item of n.items) walk(item);
  };
  walk(form);
  return read.some((v) => !bound.has(v));
}

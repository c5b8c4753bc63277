import type { IRDocument } from "./models/index.js";
import type { Problem } from "./problems.js";
import { renderActual } from "./problems.js";

/** Node kinds that run no code of their own: they cannot act on the world. */
const INERT_KINDS = new Set(["echo", "halt"]);

/**
 * Warnings about a valid document that is not fail-closed (`keel ir lint`, printed by `keel run`
 * too). Never errors: a document may mean it. Each is a Problem with a JSON Pointer path.
 *
 * - `fall_through_to_effect`: after a person answers an interrupt, an answer no rule matches
 *   falls through (declaration order) into a node that runs code, which may act on the world:
 *   an unexpected answer does what only an expected one should. Fixed by an unconditional rule
 *   on the node the answer lands on (`(node-id x)` alone) that halts or routes elsewhere; it
 *   loses to every earlier rule, so it fires only when none matched.
 * - `approval_without_expiry`: an interrupt (a person's approval) without a `timeout`; a governed
 *   run gives it the runtime's approval lifetime (1 hour) and then takes its `on_timeout`.
 *
 * A node "runs code" unless its kind is `echo` or `halt`: whether code acts on the world is not
 * in the document, so the lint assumes it may.
 *
 * @example
 * for (const w of lintDocument(doc)) console.warn(`${w.path}: ${w.message}`);
 */
export function lintDocument(doc: IRDocument): Problem[] {
  const warnings: Problem[] = [];
  const order = doc.nodes.map((node) => node.id);
  const kindOf = new Map(doc.nodes.map((node) => [node.id, node.kind]));
  const after = (id: string) => order[order.indexOf(id) + 1];
  const catchAll = new Set(
    doc.rules
      .filter((rule) => rule.then.some((a) => a.kind !== "assert" && a.kind !== "retract"))
      .map(
        (rule) =>
          /^\s*\(\s*node-id\s+([^\s()]+)\s*\)\s*$/.exec(
            typeof rule.when === "string" ? rule.when : "",
          )?.[1],
      )
      .filter((id): id is string => id !== undefined),
  );
  doc.rules.forEach((rule, r) => {
    rule.then.forEach((action, a) => {
      if (action.kind !== "interrupt") return;
      const path = `/rules/${r}/then/${a}`;
      if (action.timeout === null) {
        warnings.push({
          code: "approval_without_expiry",
          path: `${path}/timeout`,
          message: `Rule ${rule.id} asks a person ("${action.prompt}") without a timeout: the approval never expires in the document; a governed run gives it the runtime's lifetime (1 hour), then takes on_timeout (${action.on_timeout}).`,
          expected: "a timeout (e.g. PT4H) and an on_timeout that fails closed",
          actual: "null",
          hint: 'Add "timeout": "PT4H" (and "on_timeout": "halt" or "goto:<node>").',
        });
      }
      const asker = /\(\s*node-id\s+([^\s()]+)\s*\)/.exec(
        typeof rule.when === "string" ? rule.when : "",
      )?.[1];
      if (asker === undefined) return;
      // Where the answer lands, then every node an unmatched answer falls through to.
      let landing = after(asker);
      const seen = new Set<string>();
      while (landing !== undefined && !seen.has(landing)) {
        seen.add(landing);
        const kind = kindOf.get(landing) ?? "";
        if (kind === "halt") return;
        if (!INERT_KINDS.has(kind)) {
          warnings.push({
            code: "fall_through_to_effect",
            path,
            message: `After the person answers rule ${rule.id}'s interrupt, an answer no rule matches falls through to node "${landing}", which runs code (${kind}) and may act on the world.`,
            expected: `an unconditional rule on the node the answer lands on, (node-id ${[...seen][0]}), that halts or routes elsewhere`,
            actual: renderActual([...seen].join(" -> ")),
            hint: `Add a last rule {"when": "(node-id ${[...seen][0]})", "then": [{"kind": "halt", "reason": "unexpected answer"}]}: it fires only when no earlier rule matched.`,
          });
          return;
        }
        if (catchAll.has(landing)) return;
        landing = after(landing);
      }
    });
  });
  return warnings;
}

import type { IRDocument } from "./models/index.js";
import { type Problem, renderActual } from "./problems.js";
import { onTimeoutProblem } from "./references.js";
import { conditionProblems } from "./rule-conditions.js";
import { isAtLeast11 } from "./version.js";

/**
 * What a valid document may do that is probably a mistake but does not stop a run — documents
 * Stargraph writes and runs, which Keel therefore loads:
 *
 * - `dangling_join`: a top-level parallel block whose `join` names no node (the run joins at the
 *   end of the block instead);
 * - `on_timeout_unused`: an interrupt without a `timeout` whose `on_timeout` is neither `halt` nor
 *   `goto:<node>` (it never acts, since the wait never times out);
 * - `rule_invalid`, at IR 1.1.0 only: a `when` text that is not valid CLIPS. Stargraph hands it
 *   to its engine when the run starts, so the document validates; compiling it fails.
 *
 * @example
 * documentWarnings(doc) // [{ code: "dangling_join", path: "/parallel/0/join", … }]
 */
export function documentWarnings(doc: IRDocument): Problem[] {
  const nodes = new Set(doc.nodes.map((node) => node.id));
  const warnings: Problem[] = [];
  doc.parallel.forEach((block, index) => {
    if (block.join === "" || nodes.has(block.join)) return;
    warnings.push({
      code: "dangling_join",
      path: `/parallel/${index}/join`,
      message: `The block joins at "${block.join}", which is not a node: the run joins at the end of the block.`,
      expected: 'a declared node id, or ""',
      actual: renderActual(block.join),
      hint: 'Name the join node, or write "" to join at the end of the block.',
    });
  });
  doc.rules.forEach((rule, r) => {
    rule.then.forEach((action, a) => {
      if (action.kind !== "interrupt" || action.timeout !== null) return;
      if (onTimeoutProblem(action.on_timeout, nodes) === undefined) return;
      warnings.push({
        code: "on_timeout_unused",
        path: `/rules/${r}/then/${a}/on_timeout`,
        message: `on_timeout "${action.on_timeout}" would not work, but the interrupt has no timeout, so it never acts.`,
        expected: '"halt" | "goto:<node_id>"',
        actual: renderActual(action.on_timeout),
        hint: 'Write "halt" or "goto:<node_id>", or leave on_timeout out.',
      });
    });
  });
  if (isAtLeast11(doc.ir_version)) warnings.push(...conditionProblems(doc));
  return warnings;
}

/**
 * A rule's dynamic salience evaluated when the rule is defined, as CLIPS 6.30 does whatever
 * `set-salience-evaluation` says: an evaluation error (an unbound global, a bad argument) is
 * CLIPS's message, then `[PRNTUTIL8]`, and the rule is not defined.
 *
 * @example
 * // (defrule foo (declare (salience ?*nope*)) =>) with no ?*nope* prints
 * // "[GLOBLDEF1] Global variable ?*nope* is unbound.\n\n[PRNTUTIL8] This error occurred while
 * // evaluating the salience for defrule foo.\n\nERROR:\n(defrule MAIN::foo\n   (declare (salience ?*nope*\n"
 */
import { isKeelError } from "../core/index.js";
import type { RuleAst } from "./ast.js";
import { rulesLoadError } from "./errors.js";
import { lastToken, readForms, type SList, type SNode, type SourcePos } from "./reader.js";

/** The salience `evaluate` gives now, or the definition error CLIPS reports when it fails. */
export function salienceWhenDefined(ast: RuleAst, evaluate: () => number): number {
  try {
    return evaluate();
  } catch (e) {
    const clips = isKeelError(e) ? e.details.clips : undefined;
    const node = salienceNode(ast);
    if (typeof clips !== "string" || node === undefined) throw e;
    // The echo runs through the salience expression, before the declaration's `)`: through
    // its last token, then the `)`s closing it.
    const { last, closing } = lastToken(node);
    throw rulesLoadError(last.pos, `the salience of ${ast.name} could not be evaluated`, {
      construct: `defrule ${ast.name}`,
      clips: `${clips}\n[PRNTUTIL8] This error occurred while evaluating the salience for defrule ${ast.name}.`,
      echoThrough: true,
      echoAfter: closing,
    });
  }
}

/** The `(salience …)` value node, read again from the rule's source, at its place in the file. */
function salienceNode(ast: RuleAst): SNode | undefined {
  const form = readForms(ast.source)[0];
  if (form?.type !== "list") return undefined;
  for (const item of form.items) {
    if (item.type !== "list" || !isHead(item, "declare")) continue;
    for (const d of item.items) {
      if (d.type === "list" && isHead(d, "salience"))
        return d.items[1] && moved(d.items[1], ast.pos);
    }
  }
  return undefined;
}

function isHead(list: SList, text: string): boolean {
  const head = list.items[0];
  return head?.type === "atom" && head.text === text;
}

/** `node` read from a source starting at `start`'s line and column (its own start is 1:1). */
function moved(node: SNode, start: SourcePos): SNode {
  const pos = {
    ...node.pos,
    line: node.pos.line + start.line - 1,
    column: node.pos.line === 1 ? node.pos.column + start.column - 1 : node.pos.column,
  };
  return node.type === "list"
    ? { ...node, pos, items: node.items.map((n) => moved(n, start)) }
    : { ...node, pos };
}

/**
 * Priming a new rule's node from a node other rules already fed, as CLIPS 6.30 does when a rule
 * is added (incrrset.c PrimeJoinFromLeftMemory / PrimeJoinFromRightMemory): the new node takes
 * the tokens its parent made in the order a sibling holds them. The sibling is the first child
 * of the parent (children are newest first) that does not belong to the new rule.
 */
import { JoinNode, TerminalNode, TestNode } from "./beta.js";
import { type NandInput, NandNode, NegativeNode } from "./blocking.js";
import {
  type LeftInput,
  lastTokenSeq,
  outputOf,
  type Primed,
  type Token,
  type TokenSource,
} from "./memory.js";

/** What priming needs besides the node: the new rule's nodes and the root token. */
export interface PrimeContext {
  readonly fresh: ReadonlySet<unknown>;
  readonly root: Token;
}

/** Feeds `node` the tokens of `parent`, in the order its first older sibling holds them. */
export function primeFromSibling(node: LeftInput, parent: TokenSource, ctx: PrimeContext): void {
  const sibling = parent.children.find((c) => c !== node && !ctx.fresh.has(c));
  if (!sibling) return;
  const tokens = heldBy(sibling, parent, ctx.root);
  if (node instanceof TerminalNode || node instanceof TestNode) {
    node.primed = { tokens, upto: lastTokenSeq() };
  }
  for (const t of tokens) if (!t.dead) node.leftActivate(t);
}

/**
 * The tokens a node holds, in the order CLIPS scans its memory: a left memory newest first in
 * each bucket, a nand join's right memory oldest first. A terminal or test node keeps no memory
 * (Keel's activations live elsewhere): it took its parent's tokens as they were made, after the
 * ones it was primed with, so its memory is rebuilt from that.
 */
function heldBy(sibling: LeftInput, parent: TokenSource, root: Token): Token[] {
  if (
    sibling instanceof JoinNode ||
    sibling instanceof NegativeNode ||
    sibling instanceof NandNode
  ) {
    return live([...sibling.left.chains.all()].map((e) => e.token));
  }
  if ("nand" in sibling) {
    return live([...(sibling as NandInput).nand.memory.all()].map((gm) => gm.token));
  }
  const primed = (sibling as { primed?: Primed | null }).primed;
  if (parent instanceof NegativeNode && parent.passes) {
    // The node passes tokens on: what it passes now, in the order it passed them.
    const made = parent.passed();
    if (!primed) return made.reverse();
    const at = (t: Token) => parent.passedAt(t);
    const kept = primed.tokens.filter((t) => at(t) > 0 && at(t) <= primed.upto);
    return [...kept, ...made.filter((t) => at(t) > primed.upto)].reverse();
  }
  const made = outputOf(parent, root);
  const taken = primed
    ? [...live(primed.tokens), ...made.filter((t) => t.seq > primed.upto)]
    : made;
  return taken.reverse();
}

function live(tokens: readonly Token[]): Token[] {
  return tokens.filter((t) => !t.dead);
}

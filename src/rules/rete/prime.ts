/**
 * Priming a new rule's node from a node other rules already fed, as CLIPS 6.30 does when a rule
 * is added (incrrset.c PrimeJoinFromLeftMemory / PrimeJoinFromRightMemory): the new node takes
 * the tokens its parent made in the order a sibling holds them. The sibling is the first child
 * of the parent (children are newest first) that does not belong to the new rule.
 */

import type { Value } from "../values.js";
import { JoinNode, TerminalNode, TestNode } from "./beta.js";
import { type NandInput, NandNode, NegativeNode } from "./blocking.js";
import { betaBucket } from "./clips-hash.js";
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
  if (tokens.length > 0) {
    // A view's order is that of the tokens' making and passing: one primed takes them in
    // another order, so the node and the views of it keep memories of their own.
    if (node instanceof NegativeNode) node.ownMemory();
    for (const c of (node as Partial<TokenSource>).children ?? []) {
      if (c instanceof NegativeNode && c.viewOf === node) c.ownMemory();
    }
  }
  const upto = lastTokenSeq();
  if (node instanceof TerminalNode || node instanceof TestNode) node.primed = { tokens, upto };
  const order = new WeakMap<Token, number>();
  for (const [i, t] of tokens.entries()) order.set(t, upto + (i + 1) / (tokens.length + 1));
  primedOrder.set(node, order);
  for (const t of tokens) if (!t.dead) node.leftActivate(t);
}

/** When each primed node took each token it was primed with (see {@link enteredAt}). */
const primedOrder = new WeakMap<LeftInput, WeakMap<Token, number>>();

/**
 * When `node` took `t` on a token `seq` scale: between the seq before and after priming for a
 * token it was primed with, in the order it took them; else `made` (when the token was made or
 * passed on, which is when the node took it).
 */
export function enteredAt(node: LeftInput, t: Token, made: number): number {
  const primed = primedOrder.get(node)?.get(t);
  return primed !== undefined && primed > made ? primed : made;
}

/**
 * The tokens a node holds, in the order CLIPS scans its memory: a left memory newest first in
 * each bucket, a nand join's right memory oldest first. A terminal or test node keeps no memory
 * (Keel's activations live elsewhere): it took its parent's tokens as they were made, after the
 * ones it was primed with, so its memory is rebuilt from that.
 */
export function heldBy(sibling: LeftInput, parent: TokenSource, root: Token): Token[] {
  if (sibling instanceof JoinNode) {
    const tokens = live([...sibling.left.chains.all()].map((e) => e.token));
    return inClipsOrder(sibling, parent, tokens, sibling.spec.clipsHash, true);
  }
  if (sibling instanceof NegativeNode || sibling instanceof NandNode) {
    return inClipsOrder(sibling, parent, sibling.heldTokens(), sibling.spec.clipsHash, true);
  }
  if ("nand" in sibling) {
    const nand = (sibling as NandInput).nand;
    const tokens = live([...nand.memory.all()].map((gm) => gm.token));
    return inClipsOrder(sibling, parent, tokens, nand.spec.clipsHash, false);
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

/**
 * A hashed memory's tokens in CLIPS's order: bucket by bucket as CLIPS 6.30 files them (Keel's
 * own buckets differ), in each the order the memory took them (a left memory newest first, a
 * nand join's right memory oldest first). An unhashed memory's chain is already in that order.
 */
function inClipsOrder(
  node: LeftInput,
  parent: TokenSource,
  tokens: Token[],
  hashValues: ((t: Token) => readonly Value[]) | null,
  newestFirst: boolean,
): Token[] {
  if (hashValues === null || tokens.length < 2) return tokens;
  const passing = (parent instanceof NegativeNode || parent instanceof NandNode) && parent.passes;
  const keyed = tokens.map((t) => ({
    t,
    bucket: betaBucket(hashValues(t)),
    at: enteredAt(node, t, passing ? parent.passedAt(t) : t.seq),
  }));
  keyed.sort((a, b) => a.bucket - b.bucket || (newestFirst ? b.at - a.at : a.at - b.at));
  return keyed.map((k) => k.t);
}

function live(tokens: readonly Token[]): Token[] {
  return tokens.filter((t) => !t.dead);
}

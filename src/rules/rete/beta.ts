import { KeyedBags } from "./index-bag.js";
import type { AlphaMatch, AlphaNode, Block, RightInput, Unblockable } from "./memory.js";
import {
  emit,
  type LeftInput,
  linkBlock,
  removeChildrenFrom,
  removeTokensOf,
  Token,
  type TokenSource,
  unlinkBlock,
} from "./memory.js";

/** How a join compares a token with an alpha match: hash keys for equality tests, then other tests. */
export interface JoinSpec {
  /** Sharing key: nodes with the same parent, alpha node and key are one node. */
  readonly key: string;
  readonly leftKey: ((t: Token) => unknown) | null;
  readonly rightKey: ((am: AlphaMatch) => unknown) | null;
  readonly test: ((t: Token, am: AlphaMatch) => boolean) | null;
}

/** The top of the beta network: one empty token every rule starts from. */
export class RootNode implements TokenSource {
  readonly children: LeftInput[] = [];
  token = new Token(null, null, this, []);

  /** Replaces the root token (reset): everything below is dropped by the caller first. */
  renew(): Token {
    this.token = new Token(null, null, this, []);
    return this.token;
  }
}

/** Shared plumbing: children newest first (as CLIPS links them). */
abstract class BetaNode implements TokenSource {
  readonly children: LeftInput[] = [];
  addChild(c: LeftInput): void {
    this.children.unshift(c);
  }
}

/** A node's join key for a token, remembered on the token for the first node that asks. */
function leftKeyOf(node: { spec: JoinSpec }, t: Token): unknown {
  if (node.spec.leftKey === null) return undefined;
  if (t.keyOwner === node) return t.key;
  const key = node.spec.leftKey(t);
  if (t.keyOwner === null) {
    t.keyOwner = node;
    t.key = key;
  }
  return key;
}

/** A positive pattern: joins tokens with alpha matches. */
export class JoinNode extends BetaNode implements LeftInput, RightInput {
  rank = 0;
  readonly left = new KeyedBags<Token>();
  readonly right: KeyedBags<AlphaMatch>;
  constructor(
    readonly alpha: AlphaNode,
    readonly spec: JoinSpec,
  ) {
    super();
    this.right = alpha.index;
  }

  leftActivate(t: Token): void {
    const key = leftKeyOf(this, t);
    this.left.add(key, t);
    const list = this.right.get(key);
    if (!list) return;
    const test = this.spec.test;
    // Alpha memories are scanned oldest first, as CLIPS does.
    const n = list.length;
    for (let i = 0; i < n; i++) {
      const am = list[i] as AlphaMatch;
      if (am.dead || am.reached <= this.rank) continue;
      if (t.dead) return;
      if (test === null || test(t, am)) emit(this, t, am);
    }
  }

  leftRemove(t: Token): void {
    this.left.removed(t.keyOwner === this ? t.key : leftKeyOf(this, t));
  }

  rightActivate(am: AlphaMatch): void {
    const key = am.key;
    const list = this.left.get(key);
    if (!list) return;
    const test = this.spec.test;
    // Beta memories are scanned newest first, as CLIPS does.
    for (let i = list.length - 1; i >= 0; i--) {
      const t = list[i] as Token;
      if (t.dead) continue;
      if (test === null || test(t, am)) emit(this, t, am);
    }
  }

  rightRetract(am: AlphaMatch): void {
    removeTokensOf(am, this);
  }
}

/**
 * `(not pattern)` or `(exists pattern)`: passes a token while no (not) or some (exists) alpha match
 * joins with it. As in CLIPS, a token is held by the first match that conflicts with it; when that
 * match goes the node looks for another one, so each change costs only the tokens it touches and
 * what a retraction frees comes in CLIPS's order.
 */
export class NegativeNode extends BetaNode implements LeftInput, RightInput, Unblockable {
  rank = 0;
  readonly left = new KeyedBags<Token>();
  readonly right: KeyedBags<AlphaMatch>;
  /** Block records of tokens whose own record slot another negative node already uses. */
  private readonly blocks = new Map<Token, Block>();
  /** Set when the node leaves the network: stale block records then do nothing. */
  detached = false;
  constructor(
    readonly alpha: AlphaNode,
    readonly spec: JoinSpec,
    readonly exists: boolean,
  ) {
    super();
    this.right = alpha.index;
  }

  private recordOf(t: Token): Block {
    if (t.blockOwner === this) return t.block as Block;
    const known = this.blocks.get(t);
    if (known) return known;
    const b: Block = { token: t, node: this, am: null, prev: null, next: null };
    if (t.blockOwner === null) {
      t.blockOwner = this;
      t.block = b;
    } else this.blocks.set(t, b);
    return b;
  }

  private blockerOf(t: Token): AlphaMatch | null {
    if (t.blockOwner === this) return (t.block as Block).am;
    return this.blocks.get(t)?.am ?? null;
  }

  /** The first live match in memory order that conflicts with `t`, other than `skip`. */
  private firstConflict(t: Token, key: unknown, skip: AlphaMatch | null): AlphaMatch | null {
    const list = this.right.get(key);
    if (!list) return null;
    const test = this.spec.test;
    for (let i = 0; i < list.length; i++) {
      const am = list[i] as AlphaMatch;
      if (am.dead || am === skip || am.reached <= this.rank) continue;
      if (test === null || test(t, am)) return am;
    }
    return null;
  }

  leftActivate(t: Token): void {
    const key = leftKeyOf(this, t);
    this.left.add(key, t);
    const am = this.firstConflict(t, key, null);
    if (am) linkBlock(this.recordOf(t), am);
    if ((am !== null) === this.exists) emit(this, t, null);
  }

  leftRemove(t: Token): void {
    this.left.removed(t.keyOwner === this ? t.key : leftKeyOf(this, t));
    const b = t.blockOwner === this ? t.block : this.blocks.get(t);
    if (b) unlinkBlock(b);
    if (t.blockOwner !== this) this.blocks.delete(t);
  }

  rightActivate(am: AlphaMatch): void {
    const key = am.key;
    const list = this.left.get(key);
    if (!list) return;
    const test = this.spec.test;
    for (let i = list.length - 1; i >= 0; i--) {
      const t = list[i] as Token;
      if (t.dead || this.blockerOf(t) !== null) continue;
      if (test !== null && !test(t, am)) continue;
      linkBlock(this.recordOf(t), am);
      if (this.exists) emit(this, t, null);
      else removeChildrenFrom(t, this);
    }
  }

  /** Retraction is handled through the match's block list (see {@link unblock}). */
  rightRetract(): void {}

  unblock(b: Block, gone: AlphaMatch): void {
    const t = b.token;
    if (this.detached || t.dead) return;
    const next = this.firstConflict(t, t.keyOwner === this ? t.key : leftKeyOf(this, t), gone);
    if (next) {
      linkBlock(b, next);
      return;
    }
    if (this.exists) removeChildrenFrom(t, this);
    else emit(this, t, null);
  }
}

/** `(test expr)`: passes the tokens for which the expression is not FALSE. */
export class TestNode extends BetaNode implements LeftInput {
  constructor(
    readonly key: string,
    readonly test: (t: Token) => boolean,
  ) {
    super();
  }
  leftActivate(t: Token): void {
    if (this.test(t)) emit(this, t, null);
  }
  leftRemove(): void {}
}

/**
 * A negated (or, for exists, required) conjunction: `(not (and …))`, `(exists a b)`, `forall`.
 * The conjunction is a sub-network fed with the same tokens; its results are counted per owner
 * token by the partner node at its bottom.
 */
export class ConjunctionNode extends BetaNode implements LeftInput {
  readonly partner: ConjunctionPartner;
  /** The first node of the sub-network (set by the compiler). */
  subnet: LeftInput | null = null;
  private readonly live = new Set<Token>();
  constructor(
    readonly key: string,
    readonly ownerDepth: number,
    readonly exists: boolean,
  ) {
    super();
    this.partner = new ConjunctionPartner(this);
  }

  passes(count: number): boolean {
    return this.exists ? count > 0 : count === 0;
  }

  leftActivate(t: Token): void {
    this.subnet?.leftActivate(t);
    this.live.add(t);
    if (this.passes(this.partner.count(t))) emit(this, t, null);
  }

  leftRemove(t: Token): void {
    this.subnet?.leftRemove(t);
    this.live.delete(t);
    this.partner.forget(t);
  }

  /** The partner saw the count for `owner` change. */
  countChanged(owner: Token, before: number, after: number): void {
    if (!this.live.has(owner) || owner.dead) return;
    const was = this.passes(before);
    const is = this.passes(after);
    if (was && !is) removeChildrenFrom(owner, this);
    else if (!was && is) emit(this, owner, null);
  }
}

/** The bottom of a conjunction's sub-network: counts results per owner token. */
export class ConjunctionPartner implements LeftInput {
  private readonly counts = new Map<Token, number>();
  constructor(private readonly owner: ConjunctionNode) {}

  count(t: Token): number {
    return this.counts.get(t) ?? 0;
  }

  forget(t: Token): void {
    this.counts.delete(t);
  }

  private ownerOf(t: Token): Token {
    let o: Token = t;
    while (o.matches.length > this.owner.ownerDepth && o.parent) o = o.parent;
    return o;
  }

  leftActivate(t: Token): void {
    const o = this.ownerOf(t);
    const before = this.counts.get(o) ?? 0;
    this.counts.set(o, before + 1);
    this.owner.countChanged(o, before, before + 1);
  }

  leftRemove(t: Token): void {
    const o = this.ownerOf(t);
    if (o.dead) return;
    const before = this.counts.get(o) ?? 0;
    if (before === 0) return;
    this.counts.set(o, before - 1);
    this.owner.countChanged(o, before, before - 1);
  }
}

/** The end of a rule: each token reaching it is an activation. */
export class TerminalNode implements LeftInput {
  constructor(
    readonly onActivate: (t: Token) => void,
    readonly onRemove: (t: Token) => void,
  ) {}
  leftActivate(t: Token): void {
    this.onActivate(t);
  }
  leftRemove(t: Token): void {
    this.onRemove(t);
  }
}

export type ParentNode = RootNode | JoinNode | NegativeNode | TestNode | ConjunctionNode;
export { BetaNode };

import type { Value } from "../values.js";
import type { AlphaMatch, AlphaNode, Primed, RightInput } from "./memory.js";
import {
  emit,
  type LeftInput,
  LeftMemory,
  removeTokensOf,
  Token,
  type TokenSource,
} from "./memory.js";

/**
 * How a join compares a token with an alpha match: the hash of its equality-tested values picks
 * the bucket (as CLIPS's leftHash/rightHash do), `keyEq` confirms the values are equal, then the
 * other tests run. With no equality test every entry hashes to 0 and `keyEq` is null.
 */
export interface JoinSpec<R = AlphaMatch> {
  /** Sharing key: nodes with the same parent, alpha node and key are one node. */
  readonly key: string;
  readonly leftHash: ((t: Token) => number) | null;
  readonly rightHash: ((am: R) => number) | null;
  readonly keyEq: ((t: Token, am: R) => boolean) | null;
  readonly test: ((t: Token, am: R) => boolean) | null;
  /**
   * The values CLIPS 6.30 hashes a token by at this join, in its order (the pattern's last
   * compared field first); only `matches` reads it, to list a memory in CLIPS's bucket order.
   */
  readonly clipsHash: ((t: Token) => readonly Value[]) | null;
  /**
   * The equality-tested pairs in hashing order: which token value each reads (its place) and
   * that value's hash read from a right match. A not node whose join includes its parent not
   * node's hashes a match by its parent's pairs with these (see BlockingNode.viewOf).
   */
  readonly parts: readonly JoinPart<R>[] | null;
}

/** One equality-tested pair of a join (see JoinSpec.parts). */
export interface JoinPart<R = AlphaMatch> {
  /** The token value's place (its pattern and read), equal in two joins reading one variable. */
  readonly place: string;
  readonly rightHash: (am: R) => number;
}

/** The top of the beta network: one empty token every rule starts from. */
export class RootNode implements TokenSource {
  readonly children: LeftInput[] = [];
  readonly depth = 0;
  token = new Token(null, null, this, 0);

  /** Replaces the root token (reset): everything below is dropped by the caller first. */
  renew(): Token {
    this.token = new Token(null, null, this, 0);
    return this.token;
  }
}

/** Shared plumbing: children newest first (as CLIPS links them). */
abstract class BetaNode implements TokenSource {
  readonly children: LeftInput[] = [];
  /** Set by the network when it places the node (see TokenSource.depth). */
  depth = 0;
  addChild(c: LeftInput): void {
    this.children.unshift(c);
  }
}

/** True when token `t` and right-memory match `am` join (their hashes are already equal). */
export function joins<R>(spec: JoinSpec<R>, t: Token, am: R): boolean {
  return (spec.keyEq === null || spec.keyEq(t, am)) && (spec.test === null || spec.test(t, am));
}

/** A positive pattern: joins tokens with alpha matches. */
export class JoinNode extends BetaNode implements LeftInput, RightInput {
  rank = 0;
  readonly left: LeftMemory;
  constructor(
    readonly alpha: AlphaNode,
    readonly spec: JoinSpec,
  ) {
    super();
    this.left = new LeftMemory(spec.leftHash !== null);
  }

  leftActivate(t: Token): void {
    const spec = this.spec;
    const hash = spec.leftHash === null ? 0 : spec.leftHash(t);
    this.left.add(t, hash);
    // Alpha memories are scanned oldest first, as CLIPS does; a match of a fact being retracted
    // is passed over (a not it unblocked sends tokens here before the fact leaves this memory).
    for (let am = this.alpha.memory.first(hash); am !== null; am = am.next) {
      if (am.hash !== hash || am.reached <= this.rank || am.fact.retracted) continue;
      if (t.dead) return;
      if (joins(spec, t, am)) emit(this, t, am);
    }
  }

  leftRemove(t: Token): void {
    this.left.remove(t);
  }

  /** Keeps `t` in the left memory without joining it with what the alpha memory holds now. */
  hold(t: Token): void {
    if (this.left.holder(t) === null)
      this.left.add(t, this.spec.leftHash === null ? 0 : this.spec.leftHash(t));
  }

  rightActivate(am: AlphaMatch): void {
    const spec = this.spec;
    const hash = am.hash;
    // Beta memories are scanned newest first, as CLIPS does.
    for (let e = this.left.chains.first(hash); e !== null; e = e.next) {
      if (e.hash !== hash) continue;
      const t = e.token;
      if (!t.dead && joins(spec, t, am)) emit(this, t, am);
    }
  }

  rightRetract(am: AlphaMatch): void {
    removeTokensOf(am, this);
  }
}

/** `(test expr)`: passes the tokens for which the expression is not FALSE. */
export class TestNode extends BetaNode implements LeftInput {
  /** Set when primed from a sibling (the order it took its tokens). */
  primed: Primed | null = null;
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
 * What the terminals tell the engine: one object for every rule, each terminal passing its own
 * rule, so the call is one target (a closure per rule made it a different one per terminal).
 */
export interface TerminalHooks<E = unknown, I = unknown> {
  activate(entry: E, info: I, t: Token): void;
  deactivate(entry: E, t: Token): void;
}

/** The end of a rule: each token reaching it is an activation. */
export class TerminalNode<E = unknown, I = unknown> implements LeftInput {
  /** Set when primed from a sibling (the order it took its tokens). */
  primed: Primed | null = null;
  constructor(
    readonly hooks: TerminalHooks<E, I>,
    readonly entry: E,
    readonly info: I,
  ) {}
  leftActivate(t: Token): void {
    this.hooks.activate(this.entry, this.info, t);
  }
  leftRemove(t: Token): void {
    this.hooks.deactivate(this.entry, t);
  }
}

export { BetaNode };

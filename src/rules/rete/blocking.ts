/**
 * The joins that pass a token while nothing (not) or something (exists) on their right side
 * conflicts with it: `(not pattern)` and `(exists pattern)` against an alpha memory, and CLIPS's
 * join from the right (a "nand" join) for a not/exists over several conditional elements, whose
 * right side is the last join of the group's own sub-network (drive.c, rulebld.c).
 */
import { BetaNode, type JoinSpec, joins } from "./beta.js";
import { type ChainEntry, HashChains } from "./chains.js";
import {
  type AlphaMatch,
  type AlphaNode,
  type Block,
  type Blocker,
  emit,
  type Held,
  type LeftInput,
  LeftMemory,
  linkBlock,
  nextTokenSeq,
  REACHED_ALL,
  type RightInput,
  releaseBlocks,
  removeChildrenBelow,
  removeChildrenFrom,
  type Token,
  type TokenExt,
  type TokenSource,
  type Unblockable,
  unlinkBlock,
  unlinkExt,
} from "./memory.js";

/** What a blocking node's right memory holds. */
interface RightMatch<R> extends ChainEntry<R>, Blocker {
  /** Joins of rank below this see the match (see AlphaMatch.reached). */
  readonly reached: number;
}

/**
 * As in CLIPS, a token is held by the first right-memory match that conflicts with it; when that
 * match goes the node looks for another one, so each change costs only the tokens it touches and
 * what a retraction frees comes in CLIPS's order.
 */
abstract class BlockingNode<R extends RightMatch<R>> extends BetaNode implements Unblockable {
  rank = 0;
  /** The tokens given; each one's block record is kept where the memory holds it (`aux`). */
  readonly left: LeftMemory;
  /** Set when the node leaves the network: stale block records then do nothing. */
  detached = false;
  /** Holds the records of tokens that lost their blocker while their own fact goes. */
  private readonly held: Blocker = { blocks: null };
  /**
   * Set for a not/exists node right below a passing not/exists node whose join variables its
   * own include (see {@link NegativeNode.viewParent}): its left memory is then a view of the
   * parent's (the tokens the parent passes now, found in the parent's bucket for a match's
   * hash by the parent's pairs, `viewHash`), so it keeps no entry per token, and a block record
   * only for a blocked one, on the token's `ext` list.
   */
  viewOf: NegativeNode | null = null;
  viewHash: ((am: R) => number) | null = null;
  constructor(
    readonly memory: HashChains<R>,
    readonly spec: JoinSpec<R>,
    readonly exists: boolean,
    /**
     * The node hands its input token itself to its children instead of a child token (which
     * would only add a null): fewer tokens to make, link and collect.
     */
    readonly passes = false,
  ) {
    super();
    this.left = new LeftMemory(spec.leftHash !== null);
  }

  private recordOf(h: Held, t: Token): Block {
    const known = h.aux as Block | null;
    if (known) return known;
    const b: Block = { token: t, node: this, am: null, prev: null, next: null, passedAt: 0 };
    h.aux = b;
    return b;
  }

  /** The first live match in memory order that conflicts with `t`, other than `skip`. */
  private firstConflict(t: Token, hash: number, skip: Blocker | null): R | null {
    const spec = this.spec;
    for (let am = this.memory.first(hash); am !== null; am = am.next) {
      if (am.hash !== hash || am === skip || am.reached <= this.rank) continue;
      if (joins(spec, t, am)) return am;
    }
    return null;
  }

  leftActivate(t: Token): void {
    const hash = this.spec.leftHash === null ? 0 : this.spec.leftHash(t);
    if (this.viewOf !== null) {
      const conflict = this.firstConflict(t, hash, null);
      const b = conflict === null ? null : new ViewBlock(t, this);
      if (b !== null) linkBlock(b, conflict as R);
      if ((conflict !== null) === this.exists) this.pass(t, b);
      return;
    }
    const h = this.left.add(t, hash);
    const am = this.firstConflict(t, hash, null);
    if (am) linkBlock(this.recordOf(h, t), am);
    if ((am !== null) === this.exists) this.pass(t, h.aux as Block | null);
  }

  leftRemove(t: Token): void {
    if (this.viewOf !== null) {
      // The parent hands on only what it passed, so `t` is in the view.
      const b = viewRecord(t, this);
      if (b !== null) {
        unlinkBlock(b);
        unlinkExt(t, b);
      }
      if (this.passes && (b !== null && b.am !== null) === this.exists) this.forget(t);
      return;
    }
    const h = this.left.holder(t);
    if (h === null) return;
    const b = h.aux as Block | null;
    const passed = this.passes && (b !== null && b.am !== null) === this.exists;
    if (b) unlinkBlock(b);
    this.left.removeHeld(t, h);
    if (passed) this.forget(t);
  }

  /** The children took `t` itself: they forget it too (its children are removed by the caller). */
  private forget(t: Token): void {
    const kids = this.children;
    for (let i = 0; i < kids.length; i++) (kids[i] as LeftInput).leftRemove(t);
  }

  /** The live tokens the node holds (its left memory, or the view of its parent's). */
  heldTokens(): Token[] {
    const view = this.viewOf;
    const out: Token[] = [];
    if (view === null) {
      for (const e of this.left.chains.all()) if (!e.token.dead) out.push(e.token);
    } else {
      for (const e of view.left.chains.all()) if (view.passedAt(e.token) > 0) out.push(e.token);
    }
    return out;
  }

  /** The live tokens a passing node hands on now, oldest first (to prime a new child). */
  passed(): Token[] {
    const out = this.heldTokens().filter((t) => this.passedAt(t) > 0);
    return out.sort((a, b) => this.passedAt(a) - this.passedAt(b));
  }

  /** When the node last passed `t` on (a token `seq`), or 0 when it does not pass it now. */
  passedAt(t: Token): number {
    if (t.dead) return 0;
    let b: Block | null;
    if (this.viewOf !== null) {
      if (this.viewOf.passedAt(t) === 0) return 0;
      b = viewRecord(t, this);
    } else {
      const h = this.left.holder(t);
      if (h === null) return 0;
      b = h.aux as Block | null;
    }
    if ((b !== null && b.am !== null) !== this.exists) return 0;
    return b !== null && b.passedAt > 0 ? b.passedAt : t.seq;
  }

  /** Hands `t` on: itself to the children when the node passes tokens, else a child token. */
  private pass(t: Token, b: Block | null): void {
    if (!this.passes) {
      emit(this, t, null);
      return;
    }
    if (b !== null) b.passedAt = nextTokenSeq();
    const kids = this.children;
    for (let i = 0; i < kids.length; i++) {
      if (t.dead) return;
      (kids[i] as LeftInput).leftActivate(t);
    }
  }

  /** Takes back what {@link pass} handed on for `t`. */
  private takeBack(t: Token): void {
    if (!this.passes) {
      removeChildrenFrom(t, this);
      return;
    }
    const kids = this.children;
    for (let i = 0; i < kids.length; i++) (kids[i] as LeftInput).leftRemove(t);
    removeChildrenBelow(t, this);
  }

  /** A new right-memory match blocks (not) or passes (exists) the tokens it joins with. */
  rightActivate(am: R): void {
    if (this.viewOf !== null) {
      this.rightActivateView(am, this.viewOf);
      return;
    }
    const spec = this.spec;
    const hash = am.hash;
    for (let e = this.left.chains.first(hash); e !== null; e = e.next) {
      if (e.hash !== hash) continue;
      const t = e.token;
      const known = (e as Held).aux as Block | null;
      if (t.dead || (known !== null && known.am !== null) || !joins(spec, t, am)) continue;
      const b = this.recordOf(e as Held, t);
      linkBlock(b, am);
      if (this.exists) this.pass(t, b);
      else this.takeBack(t);
    }
  }

  /**
   * {@link rightActivate} over the view: the tokens the parent passes in its bucket for the
   * match, taken in the order this node's own memory would hold them (newest passed first: the
   * parent's bucket is in the order it took them, and one it passed again comes later).
   */
  private rightActivateView(am: R, view: NegativeNode): void {
    const spec = this.spec;
    const hash = (this.viewHash as (am: R) => number)(am);
    const found = viewScratch;
    const base = found.length;
    for (let e = view.left.chains.first(hash); e !== null; e = e.next) {
      if (e.hash !== hash) continue;
      const t = e.token;
      const up = (e as Held).aux as Block | null;
      if (t.dead || (up !== null && up.am !== null) !== view.exists) continue;
      const known = viewRecord(t, this);
      if ((known !== null && known.am !== null) || !joins(spec, t, am)) continue;
      found.push(t, up !== null && up.passedAt > 0 ? up.passedAt : t.seq);
    }
    const n = (found.length - base) >> 1;
    if (n > 1) sortNewestFirst(found, base, n);
    for (let i = 0; i < n; i++) {
      const t = found[base + 2 * i] as Token;
      if (t.dead) continue;
      const b = viewRecord(t, this) ?? new ViewBlock(t, this);
      linkBlock(b, am);
      if (this.exists) this.pass(t, b);
      else this.takeBack(t);
    }
    found.length = base;
  }

  unblock(b: Block, gone: Blocker): void {
    const t = b.token;
    if (this.detached || t.dead) return;
    if (holdsRetracted(t)) {
      // Nothing changes for a token about to go; a passing node keeps its record linked (to a
      // match of its own) so that its removal still knows whether the children hold it.
      if (this.passes) linkBlock(b, this.held);
      return;
    }
    const hash =
      this.viewOf === null ? this.left.hashOf(t) : (this.spec.leftHash as (t: Token) => number)(t);
    const next = this.firstConflict(t, hash, gone);
    if (next) {
      linkBlock(b, next);
      return;
    }
    if (this.exists) this.takeBack(t);
    else this.pass(t, b);
  }
}

/**
 * A view node's block record, kept on its token's `ext` list (`memory` names the node) only
 * while the token is in the view and was blocked once.
 */
class ViewBlock implements Block, TokenExt {
  am: Blocker | null = null;
  prev: Block | null = null;
  next: Block | null = null;
  passedAt = 0;
  extNext: TokenExt | null;
  /** The node (as TokenExt.memory, so an `ext` walk finds the record by its node). */
  readonly memory: object;
  constructor(
    readonly token: Token,
    readonly node: Unblockable,
  ) {
    this.memory = node;
    this.extNext = token.ext;
    token.ext = this;
  }
}

/** `node`'s block record on `t` (a view node's), or null. */
function viewRecord(t: Token, node: object): ViewBlock | null {
  for (let e = t.ext; e !== null; e = e.extNext) if (e.memory === node) return e as ViewBlock;
  return null;
}

/** Candidates of a view's right activation: token, then when its node took it (re-entrant). */
const viewScratch: (Token | number)[] = [];

/** Sorts the `n` (token, time) pairs from `base` by time, newest first (stable: few, small). */
function sortNewestFirst(a: (Token | number)[], base: number, n: number): void {
  for (let i = 1; i < n; i++) {
    const t = a[base + 2 * i] as Token;
    const at = a[base + 2 * i + 1] as number;
    let j = i - 1;
    while (j >= 0 && (a[base + 2 * j + 1] as number) < at) {
      a[base + 2 * (j + 1)] = a[base + 2 * j] as Token;
      a[base + 2 * (j + 1) + 1] = a[base + 2 * j + 1] as number;
      j--;
    }
    a[base + 2 * (j + 1)] = t;
    a[base + 2 * (j + 1) + 1] = at;
  }
}

/** `(not pattern)` or `(exists pattern)`: the right side is an alpha memory. */
export class NegativeNode extends BlockingNode<AlphaMatch> implements LeftInput, RightInput {
  /** Set when the node's parent passes tokens on: it takes a token later than it was made. */
  fedLate = false;
  constructor(
    readonly alpha: AlphaNode,
    spec: JoinSpec,
    exists: boolean,
    passes: boolean,
  ) {
    super(alpha.memory, spec, exists, passes);
  }

  /** Retraction is handled through the match's block list (see {@link unblock}). */
  rightRetract(): void {}

  /**
   * Makes the node's left memory a view of `parent`'s (see BlockingNode.viewOf) when that keeps
   * its order: `parent` passes the tokens themselves, took each when it was made (no passing
   * node above it), holds none yet (a primed one took them in another order), and `hash` reads
   * a match's hash by the parent's join pairs. What primes either node later undoes it
   * ({@link ownMemory}, before they hold a token).
   */
  viewParent(parent: NegativeNode, hash: (am: AlphaMatch) => number): void {
    if (!parent.passes || parent.fedLate || parent.left.chains.size > 0) return;
    this.viewOf = parent;
    this.viewHash = hash;
  }

  /** Keeps a left memory of its own from now on (the node holds no token yet). */
  ownMemory(): void {
    this.viewOf = null;
    this.viewHash = null;
  }
}

/** A match of a not/exists group's sub-network, held in its nand join's right memory. */
export class GroupMatch implements RightMatch<GroupMatch> {
  hash = 0;
  next: GroupMatch | null = null;
  prev: GroupMatch | null = null;
  blocks: Block | null = null;
  readonly reached = REACHED_ALL;
  constructor(readonly token: Token) {}
}

/**
 * A not/exists over several conditional elements (CLIPS's join from the right): the group is a
 * sub-network fed with the same tokens as this node, and each of its matches enters this node's
 * right memory (oldest first, as CLIPS appends to a right beta memory). The join compares only
 * the variables the group reads from outside it, so a group match blocks every token that agrees
 * on them, as in CLIPS.
 */
export class NandNode extends BlockingNode<GroupMatch> implements LeftInput {
  /** The child of the group's last node that feeds this node's right memory. */
  readonly input: NandInput;
  /** The group's last node (set by the network when it links the input there). */
  inputParent: TokenSource | null = null;

  constructor(spec: JoinSpec<GroupMatch>, exists: boolean) {
    super(new HashChains<GroupMatch>(spec.rightHash !== null), spec, exists);
    const byToken = new Map<Token, GroupMatch>();
    const memory = this.memory;
    const rightHash = spec.rightHash;
    this.input = {
      nand: this,
      leftActivate: (t) => {
        const gm = new GroupMatch(t);
        gm.hash = rightHash === null ? 0 : rightHash(gm);
        memory.append(gm);
        byToken.set(t, gm);
        this.rightActivate(gm);
      },
      leftRemove: (t) => {
        const gm = byToken.get(t);
        if (!gm) return;
        byToken.delete(t);
        memory.remove(gm);
        if (gm.blocks) releaseBlocks(gm, null);
      },
    };
  }
}

/** A nand join's right input, hung below the group's last node. */
export interface NandInput extends LeftInput {
  readonly nand: NandNode;
}

/**
 * True when a token matches a fact that is being retracted: the retraction removes it next, so
 * a blocker going away first must not pass it on. CLIPS 6.30 does not re-activate
 * `(forall (a ?x) (a ?y) (a ?x))` when the one `a` fact is retracted; passing the dying token
 * on would block the rule for a moment and then activate it again.
 */
function holdsRetracted(t: Token): boolean {
  for (let x: Token | null = t; x; x = x.parent) if (x.am?.fact.retracted) return true;
  return false;
}

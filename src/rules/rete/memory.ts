import type { Fact } from "../facts.js";
import { KeyedBags } from "./index-bag.js";

/** Anything that produces tokens and can feed children. */
export interface TokenSource {
  readonly children: LeftInput[];
}

/** A node that receives tokens from its parent. */
export interface LeftInput {
  leftActivate(t: Token): void;
  /** The parent token is gone: forget it (its children tokens are removed by the caller). */
  leftRemove(t: Token): void;
}

/**
 * A partial match: the matches of the rule's conditional elements so far (null for not, exists,
 * forall). Tokens form a tree; removing one removes its descendants. The tree and the tokens of
 * an alpha match are intrusive linked lists, so adding and removing a token allocates nothing
 * beyond the token and its match array.
 */
export class Token {
  dead = false;
  /** Creation order, to list a node's tokens oldest first when a new rule is primed. */
  readonly seq = ++tokenSeq;
  firstChild: Token | null = null;
  prevSibling: Token | null = null;
  nextSibling: Token | null = null;
  amPrev: Token | null = null;
  amNext: Token | null = null;
  /** The join key one child node computed for this token, kept so removal need not rebuild it. */
  keyOwner: object | null = null;
  key: unknown = undefined;
  /** The block record one not/exists node keeps for this token. */
  blockOwner: object | null = null;
  block: Block | null = null;
  /** The activation one rule keeps for this token. */
  actOwner: object | null = null;
  act: unknown = null;
  constructor(
    readonly parent: Token | null,
    readonly am: AlphaMatch | null,
    readonly source: TokenSource,
    readonly matches: readonly (AlphaMatch | null)[],
  ) {}
}

let tokenSeq = 0;

/** Creates a child token of `parent` produced by `source` and hands it to the source's children. */
export function emit(source: TokenSource, parent: Token, am: AlphaMatch | null): Token {
  const pm = parent.matches;
  const n = pm.length;
  const matches = new Array<AlphaMatch | null>(n + 1);
  for (let i = 0; i < n; i++) matches[i] = pm[i] as AlphaMatch | null;
  matches[n] = am;
  const t = new Token(parent, am, source, matches);
  const first = parent.firstChild;
  t.nextSibling = first;
  if (first) first.prevSibling = t;
  parent.firstChild = t;
  if (am) {
    const head = am.firstToken;
    t.amNext = head;
    if (head) head.amPrev = t;
    am.firstToken = t;
  }
  const kids = source.children;
  for (let i = 0; i < kids.length; i++) (kids[i] as LeftInput).leftActivate(t);
  return t;
}

/** Removes a token and everything derived from it. */
export function removeToken(t: Token): void {
  if (t.dead) return;
  t.dead = true;
  const source = t.source;
  const kids = source.children;
  for (let i = 0; i < kids.length; i++) (kids[i] as LeftInput).leftRemove(t);
  let c = t.firstChild;
  t.firstChild = null;
  while (c) {
    const next = c.nextSibling;
    removeToken(c);
    c = next;
  }
  const parent = t.parent;
  if (parent && !parent.dead) {
    if (t.prevSibling) t.prevSibling.nextSibling = t.nextSibling;
    else parent.firstChild = t.nextSibling;
    if (t.nextSibling) t.nextSibling.prevSibling = t.prevSibling;
  }
  const am = t.am;
  if (am) {
    if (t.amPrev) t.amPrev.amNext = t.amNext;
    else am.firstToken = t.amNext;
    if (t.amNext) t.amNext.amPrev = t.amPrev;
  }
}

/** Removes the children of `t` that `source` produced. */
export function removeChildrenFrom(t: Token, source: TokenSource): void {
  let c = t.firstChild;
  while (c) {
    const next = c.nextSibling;
    if (c.source === source) removeToken(c);
    c = next;
  }
}

/** The live tokens `source` produced from alpha match `am`. */
export function removeTokensOf(am: AlphaMatch, source: TokenSource): void {
  let t = am.firstToken;
  while (t) {
    const next = t.amNext;
    if (t.source === source) removeToken(t);
    t = next;
  }
}

/**
 * The live tokens a node produced, oldest first. Found by walking the token tree from the root
 * (only when a rule is added or removed), so matching keeps no per-node output list.
 */
export function outputOf(source: TokenSource, root: Token): Token[] {
  const out: Token[] = [];
  const stack: Token[] = [root];
  for (let t = stack.pop(); t; t = stack.pop()) {
    if (t.source === source) out.push(t);
    for (let c = t.firstChild; c; c = c.nextSibling) if (!c.dead) stack.push(c);
  }
  return out.sort((a, b) => a.seq - b.seq);
}

/**
 * Where a multifield pattern node bound its value while a fact walked the pattern tree: CLIPS's
 * multifield marker. `field` is the node's 1-based field number in its slot.
 */
export interface Mark {
  slot: number;
  field: number;
  start: number;
  len: number;
}

/**
 * One way a fact matched a pattern: the fact, and where its multifield pattern nodes bound
 * (empty for most patterns). Variables are read from these, so the match fits every pattern
 * that shares the alpha memory, whatever it calls its variables.
 */
export interface AlphaMatch {
  readonly fact: Fact;
  readonly marks: readonly Mark[];
  /** The alpha memory's hash key for this match (what the joins below look it up by). */
  key: unknown;
  readonly alpha: AlphaNode;
  /** Tokens built with this match as their newest element (a list through Token.amNext). */
  firstToken: Token | null;
  /** Set when the fact is retracted; join memories drop dead matches lazily. */
  dead: boolean;
  /** The tokens this match blocks at not/exists nodes, most recently blocked first. */
  blocks: Block | null;
  /**
   * Joins of rank below this see the match. A memory shared by several bare stop nodes holds
   * the match once; while a fact walks the tree (or is retracted) it reaches (or leaves) them
   * one by one, and each join sees it only once its own stop node has. Infinity otherwise.
   */
  reached: number;
  /** How many shared stop nodes the match has reached. */
  visits: number;
  /**
   * Where each entry of the fact's match list starts counting (null: one entry, from 0).
   * Consecutive visits share one entry, so a fact in a memory shared by N nodes costs one entry.
   */
  runs: number[] | null;
}

/**
 * A token held at a not/exists node by one alpha match, as CLIPS links a partial match to the
 * first right-memory match that conflicts with it (reteutil.c AddBlockedLink). Retracting the
 * match revisits its blocks most recent first, which decides the order of what that frees.
 */
export interface Block {
  readonly token: Token;
  readonly node: Unblockable;
  am: AlphaMatch | null;
  prev: Block | null;
  next: Block | null;
}

/** A not/exists node: told when a match that blocked one of its tokens goes away. */
export interface Unblockable {
  readonly rank: number;
  unblock(b: Block, gone: AlphaMatch): void;
}

/** Links a block record in front of its match's list. */
export function linkBlock(b: Block, am: AlphaMatch): void {
  b.am = am;
  b.prev = null;
  b.next = am.blocks;
  if (am.blocks) am.blocks.prev = b;
  am.blocks = b;
}

/** Unlinks a block record from its match's list. */
export function unlinkBlock(b: Block): void {
  const am = b.am;
  if (!am) return;
  if (b.prev) b.prev.next = b.next;
  else am.blocks = b.next;
  if (b.next) b.next.prev = b.prev;
  b.am = b.prev = b.next = null;
}

/**
 * A retracted match lets go of the blocks of the joins of one stop node (rank), most recently
 * blocked first (NegEntryRetractAlpha).
 */
export function releaseBlocks(am: AlphaMatch, rank: number): void {
  const mine: Block[] = [];
  for (let b = am.blocks; b; b = b.next) if (b.node.rank === rank) mine.push(b);
  for (const b of mine) {
    unlinkBlock(b);
    b.node.unblock(b, am);
  }
}

/** Something fed by an alpha memory (a join, not or exists node). */
export interface RightInput {
  /** The rank of the join's stop node among those sharing its alpha memory. */
  rank: number;
  rightActivate(am: AlphaMatch): void;
  rightRetract(am: AlphaMatch): void;
}

/**
 * An alpha memory: the facts that reached one stop node of the pattern tree, shared (as in
 * CLIPS) by every pattern whose path ends there.
 */
export class AlphaNode {
  /**
   * The memory hashed by the join key every successor uses (the alpha node's identity includes the
   * hashed fields, as in CLIPS), so one insertion serves all the joins below.
   */
  readonly index = new KeyedBags<AlphaMatch>();
  /** The stop nodes feeding this memory, in walking order (rank = index). */
  readonly members: { rank: number; readonly succ: RightInput[] }[] = [];
  /** The match a shared memory made for the fact walking the tree now. */
  walkFact: Fact | null = null;
  walkMatch: AlphaMatch | null = null;
  constructor(
    readonly key: string,
    readonly relation: string,
    readonly rightKey: ((am: AlphaMatch) => unknown) | null,
  ) {}

  /** Adds a match to the memory and the index. */
  store(am: AlphaMatch): void {
    const key = this.rightKey ? this.rightKey(am) : undefined;
    am.key = key;
    this.index.add(key, am);
  }

  /** Removes a match (flagged dead; the index drops it lazily). */
  drop(am: AlphaMatch): void {
    am.dead = true;
    this.index.removed(am.key);
  }
}

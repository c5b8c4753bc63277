import type { Fact } from "../facts.js";
import type { Value } from "../values.js";
import { type ChainEntry, HashChains } from "./chains.js";

/** Anything that produces tokens and can feed children. */
export interface TokenSource {
  readonly children: LeftInput[];
  /**
   * How many conditional elements the tokens it hands on cover (its position in the rule). A
   * token it makes has this depth; one a not node passes on keeps its own, smaller one.
   */
  readonly depth: number;
}

/** A node that receives tokens from its parent. */
export interface LeftInput {
  leftActivate(t: Token): void;
  /** The parent token is gone: forget it (its children tokens are removed by the caller). */
  leftRemove(t: Token): void;
}

/** An entry of a join's left memory: the token itself, or a {@link LeftEntry} for it. */
export interface MemEntry extends ChainEntry<MemEntry> {
  readonly token: Token;
}

/** Something a consumer keeps on a token without using the token's own slots. */
export interface TokenExt {
  /**
   * The left memory of a {@link LeftEntry}, the rule of an activation; null for
   * {@link TokenDependents}.
   */
  readonly memory: object | null;
  extNext: TokenExt | null;
}

/** What a token that gives logical support tells when it is removed (kept in its `ext` list). */
export interface TokenDependents extends TokenExt {
  readonly memory: null;
  lost(t: Token): void;
}

/** The logical support record of `t`, or null. */
export function dependentsOf(t: Token): TokenDependents | null {
  for (let e = t.ext; e !== null; e = e.extNext) if (e.memory === null) return e as TokenDependents;
  return null;
}

/**
 * Set once some token gives logical support: until then a removed token has no dependents to
 * look for in its `ext` list (a walk over other consumers' entries on every removal).
 */
let dependentsInUse = false;

/** Gives `t` its logical support record (it has none yet). */
export function setDependents(t: Token, d: TokenDependents): void {
  dependentsInUse = true;
  d.extNext = t.ext;
  t.ext = d;
}

/**
 * A partial match: the matches of the rule's conditional elements so far (null for not, exists,
 * forall). Tokens form a tree; removing one removes its descendants. A `(not pattern)` node
 * passes its input token on instead of making a child (it adds only a null), so a token's
 * ancestors may skip depths: read element `slot` with {@link matchAt}. The tree, the tokens of an
 * alpha match and the first left memory a token enters are intrusive linked lists, so adding and
 * removing a token allocates nothing beyond the token.
 */
export class Token implements Held {
  // Declared in the order the hot paths read them together, as V8 lays them out: a variable read
  // walks `depth`, `parent` and `am`; a memory's scan reads `hash`, `next`, `seq` and `aux`.
  /** How many conditional elements the token covers (its own match is element depth - 1). */
  readonly depth: number;
  readonly parent: Token | null;
  readonly am: AlphaMatch | null;
  /**
   * Creation order, to list a node's tokens oldest first when a new rule is primed; negated when
   * the token is removed (a field less on every token than a separate flag).
   */
  seq = ++tokenSeq;
  hash = 0;
  next: MemEntry | null = null;
  /**
   * The first consumer to claim the token's own slots: a left memory (which links the token
   * through `hash`, `next` and `prev`, and whose not/exists node keeps its block record in `aux`)
   * or a rule (which keeps the token's activation in `aux`). Other consumers keep their own.
   */
  memOwner: object | null = null;
  aux: unknown = null;
  prev: MemEntry | null = null;
  /**
   * What other consumers keep on the token: its entries in left memories that do not use its
   * own slots (see LeftEntry), and the facts it logically supports (TokenDependents).
   */
  ext: TokenExt | null = null;
  readonly source: TokenSource;
  firstChild: Token | null = null;
  nextSibling: Token | null = null;
  prevSibling: Token | null = null;
  amNext: Token | null = null;
  amPrev: Token | null = null;
  constructor(parent: Token | null, am: AlphaMatch | null, source: TokenSource, depth: number) {
    this.depth = depth;
    this.parent = parent;
    this.am = am;
    this.source = source;
  }

  get token(): Token {
    return this;
  }

  /** Set once the token is removed. */
  get dead(): boolean {
    return this.seq < 0;
  }
}

/**
 * The match of each of the first `length` conditional elements of token `t` (null for not,
 * exists, test; `length` may exceed `t.depth` when not nodes passed `t` on). Built on demand.
 */
export function matchesOf(t: Token, length: number): (AlphaMatch | null)[] {
  const out = new Array<AlphaMatch | null>(length).fill(null);
  for (let x: Token | null = t; x && x.depth > 0; x = x.parent) {
    if (x.depth <= length) out[x.depth - 1] = x.am;
  }
  return out;
}

/**
 * The match of conditional element `slot` (a pattern) in token `t`: the `am` of its ancestor
 * that covers `slot + 1` elements. Tokens do not copy their parent's matches (a walk of a few
 * links is cheaper than an array per token).
 */
export function matchAt(t: Token, slot: number): AlphaMatch | null {
  let x = t;
  while (x.depth > slot + 1) x = x.parent as Token;
  return x.am;
}

let tokenSeq = 0;

/** The `seq` of the newest token so far. */
export function lastTokenSeq(): number {
  return tokenSeq;
}

/** Takes a `seq` as if a token were made now (a token passed on again). */
export function nextTokenSeq(): number {
  return ++tokenSeq;
}

/**
 * The tokens a node without a memory of its own (a terminal or test node) was primed with, in
 * the order it took them, and the newest token `seq` then: it took every later token as it was
 * made (see prime.ts).
 */
export interface Primed {
  readonly tokens: readonly Token[];
  readonly upto: number;
}

/** Where a left memory keeps a token, with a slot for the memory's node (a not node's block). */
export interface Held extends MemEntry {
  aux: unknown;
}

/**
 * A token's place in a left memory that does not use the token's own slots: a second (third, …)
 * node fed by the token's node, or the second not node that passes it on. Listed on the token, so
 * finding it is a walk of the token's few entries, not a map lookup.
 */
class LeftEntry implements Held, TokenExt {
  next: MemEntry | null = null;
  prev: MemEntry | null = null;
  aux: unknown = null;
  extNext: TokenExt | null;
  constructor(
    readonly token: Token,
    public hash: number,
    readonly memory: LeftMemory,
  ) {
    this.extNext = token.ext;
    token.ext = this;
  }
}

/**
 * The left (beta) memory of a join or not/exists node: the tokens it was given, hashed by the
 * node's join values, newest first in each bucket (CLIPS scans beta memories newest first).
 */
export class LeftMemory {
  readonly chains: HashChains<MemEntry>;

  /** `hashed` false: the node has no equality test, every token hashes to 0. */
  constructor(hashed = true) {
    this.chains = new HashChains<MemEntry>(hashed);
  }

  /** Adds `t`; returns where it is held. */
  add(t: Token, hash: number): Held {
    // A token a not node passed on can come back after it was taken back: its slots are still ours.
    if (t.memOwner === null || t.memOwner === this) {
      t.memOwner = this;
      t.hash = hash;
      this.chains.prepend(t);
      return t;
    }
    const e = new LeftEntry(t, hash, this);
    this.chains.prepend(e);
    return e;
  }

  /** Where `t` is held, or null when it is not here. */
  holder(t: Token): Held | null {
    if (t.memOwner === this) return t;
    for (let e = t.ext; e !== null; e = e.extNext) if (e.memory === this) return e as LeftEntry;
    return null;
  }

  remove(t: Token): void {
    if (t.memOwner === this) {
      this.chains.remove(t);
      return;
    }
    let before: TokenExt | null = null;
    for (let e = t.ext; e !== null; before = e, e = e.extNext) {
      if (e.memory !== this) continue;
      if (before) before.extNext = e.extNext;
      else t.ext = e.extNext;
      this.chains.remove(e as LeftEntry);
      return;
    }
  }

  /** Removes `t`, held at `h` (what {@link holder} returned): no second walk of its entries. */
  removeHeld(t: Token, h: Held): void {
    if (h !== t) unlinkExt(t, h as LeftEntry);
    this.chains.remove(h);
  }

  /** The hash `t` was stored under. */
  hashOf(t: Token): number {
    return this.holder(t)?.hash ?? 0;
  }
}

/** Creates a child token of `parent` produced by `source` and hands it to the source's children. */
export function emit(source: TokenSource, parent: Token, am: AlphaMatch | null): Token {
  const t = new Token(parent, am, source, source.depth);
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
  t.seq = -t.seq;
  if (dependentsInUse && t.ext !== null) {
    const dependents = dependentsOf(t);
    if (dependents !== null) {
      unlinkExt(t, dependents);
      dependents.lost(t);
    }
  }
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

/** Takes `x` off `t`'s `ext` list. */
export function unlinkExt(t: Token, x: TokenExt): void {
  let before: TokenExt | null = null;
  for (let e = t.ext; e !== null; before = e, e = e.extNext) {
    if (e !== x) continue;
    if (before) before.extNext = e.extNext;
    else t.ext = e.extNext;
    return;
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

/**
 * Removes the children of `t` made by the nodes a pass-through node `node` handed `t` to (its
 * children, and theirs through further pass-through nodes).
 */
export function removeChildrenBelow(t: Token, node: TokenSource): void {
  let c = t.firstChild;
  while (c) {
    const next = c.nextSibling;
    if (below(c.source, node)) removeToken(c);
    c = next;
  }
}

/** True when `source` is a child of `node`, or below it through pass-through nodes only. */
function below(source: TokenSource, node: TokenSource): boolean {
  const kids = node.children;
  for (let i = 0; i < kids.length; i++) {
    const k = kids[i] as LeftInput & Partial<TokenSource> & { passes?: boolean };
    if (k === (source as unknown)) return true;
    if (k.passes === true && below(source, k as unknown as TokenSource)) return true;
  }
  return false;
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
 * Removes the tokens built on `am` by the joins of stop-node rank `rank`, most recently built
 * first: CLIPS walks an alpha match's children list (newest first) whatever join made them, so
 * what the removals free comes in that order, across rules (retract.c PosEntryRetractAlpha).
 */
export function removeTokensAt(am: AlphaMatch, rank: number): void {
  let t = am.firstToken;
  while (t) {
    const next = t.amNext;
    if ((t.source as unknown as RightInput).rank === rank) removeToken(t);
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
 * `AlphaMatch.reached` of a match every join may see: a small integer above any rank (not
 * Infinity, which would make V8 store the field as a boxed double on every match).
 */
export const REACHED_ALL = 0x3fffffff;

/**
 * One way a fact matched a pattern: the fact, and where its multifield pattern nodes bound
 * (empty for most patterns). Variables are read from these, so the match fits every pattern
 * that shares the alpha memory, whatever it calls its variables.
 */
export class AlphaMatch implements ChainEntry<AlphaMatch>, Blocker {
  // The fields a join's scan of a bucket reads (hash, next, reached, values) come first, so that
  // they share a cache line.
  /** The alpha memory's join hash for this match (what the joins below look it up by). */
  hash = 0;
  next: AlphaMatch | null = null;
  /**
   * Joins of rank below this see the match. A memory shared by several bare stop nodes holds
   * the match once; while a fact walks the tree (or is retracted) it reaches (or leaves) them
   * one by one, and each join sees it only once its own stop node has. REACHED_ALL otherwise.
   */
  reached = 0;
  /**
   * The fact's `values` and `hashes` (the same arrays): the joins read them for every candidate
   * pair, and one pointer less to follow there is one cache miss less in a large memory.
   */
  readonly values: readonly Value[];
  readonly hashes: readonly number[];
  prev: AlphaMatch | null = null;
  /** Tokens built with this match as their newest element (a list through Token.amNext). */
  firstToken: Token | null = null;
  /** Set when the fact is retracted. */
  dead = false;
  /** The tokens this match blocks at not/exists nodes, most recently blocked first. */
  blocks: Block | null = null;
  /** How many shared stop nodes the match has reached. */
  visits = 1;
  /**
   * Where each entry of the fact's match list starts counting (null: one entry, from 0).
   * Consecutive visits share one entry, so a fact in a memory shared by N nodes costs one entry.
   */
  runs: number[] | null = null;
  constructor(
    readonly fact: Fact,
    readonly marks: readonly Mark[],
    readonly alpha: AlphaNode,
  ) {
    this.values = fact.values;
    this.hashes = fact.hashes;
  }
}

/**
 * What can hold tokens at a not/exists node: an alpha match, or a match of a not/exists group's
 * sub-network (a nand join's right memory).
 */
export interface Blocker {
  /** The tokens this match blocks, most recently blocked first. */
  blocks: Block | null;
}

/**
 * A token held at a not/exists node by one right-memory match, as CLIPS links a partial match to
 * the first right-memory match that conflicts with it (reteutil.c AddBlockedLink). Retracting the
 * match revisits its blocks most recent first, which decides the order of what that frees.
 */
export interface Block {
  readonly token: Token;
  readonly node: Unblockable;
  am: Blocker | null;
  prev: Block | null;
  next: Block | null;
  /**
   * When a node that passes tokens on last passed this one (a token `seq`; 0: when it arrived),
   * so a new rule below the node takes its tokens in the order a child token would have been made.
   */
  passedAt: number;
}

/** A not/exists node: told when a match that blocked one of its tokens goes away. */
export interface Unblockable {
  readonly rank: number;
  unblock(b: Block, gone: Blocker): void;
}

/** Links a block record in front of its match's list. */
export function linkBlock(b: Block, am: Blocker): void {
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
 * A retracted match lets go of the blocks of the joins of one stop node (rank; every block when
 * `rank` is null), most recently blocked first (NegEntryRetractAlpha).
 */
export function releaseBlocks(am: Blocker, rank: number | null): void {
  const mine: Block[] = [];
  for (let b = am.blocks; b; b = b.next) if (rank === null || b.node.rank === rank) mine.push(b);
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
   * The memory hashed by the join values every successor uses (the alpha node's identity includes
   * the hashed fields, as in CLIPS), so one insertion serves all the joins below; oldest first in
   * each bucket, as CLIPS scans alpha memories.
   */
  readonly memory: HashChains<AlphaMatch>;
  /** The stop nodes feeding this memory, in walking order (rank = index). */
  readonly members: { rank: number; readonly succ: RightInput[] }[] = [];
  /** The match a shared memory made for the fact walking the tree now. */
  walkFact: Fact | null = null;
  walkMatch: AlphaMatch | null = null;
  /** An object pattern's memory: the object slots its patterns name (a change re-matches it). */
  watched: ReadonlySet<number> | null = null;
  constructor(
    readonly key: string,
    readonly relation: string,
    readonly rightHash: ((am: AlphaMatch) => number) | null,
  ) {
    this.memory = new HashChains<AlphaMatch>(rightHash !== null);
  }

  /** Adds a match to the memory. */
  store(am: AlphaMatch): void {
    am.hash = this.rightHash ? this.rightHash(am) : 0;
    this.memory.append(am);
  }

  /** Removes a match (and flags it dead for the not/exists nodes it blocked). */
  drop(am: AlphaMatch): void {
    am.dead = true;
    this.memory.remove(am);
  }
}

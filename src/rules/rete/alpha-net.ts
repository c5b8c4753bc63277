/**
 * The alpha side of the network: a pattern tree per relation (shaped and walked as CLIPS does,
 * so activations come in CLIPS's order), the alpha memories at its stop nodes and the joins that
 * hang from them. Asserting a fact visits only its relation's tree and the joins below the alpha
 * memories it enters; retracting one undoes its matches newest first.
 */
import type { PatternCE } from "../ast.js";
import type { Fact } from "../facts.js";
import type { JoinNode } from "./beta.js";
import type { NegativeNode } from "./blocking.js";
import {
  AlphaMatch,
  AlphaNode,
  REACHED_ALL,
  type RightInput,
  releaseBlocks,
  removeTokensAt,
} from "./memory.js";
import type { CompiledPattern } from "./pattern.js";
import { setMatchingFact } from "./pattern-context.js";
import { type Mark, PatternNet, type PatternNode } from "./pattern-net.js";

/** A join fed by an alpha memory. */
export type AlphaJoin = JoinNode | NegativeNode;

export class AlphaNet {
  private readonly nets = new Map<string, PatternNet>();
  /** The pattern-tree stop node each join hangs from. */
  private readonly stops = new Map<AlphaJoin, PatternNode>();
  /** Memories shared by bare stop nodes, by relation and join hash. */
  private readonly shared = new Map<string, AlphaNode>();
  /** Alpha memories created by the rule being built; filled once it is complete. */
  private freshAlphas: AlphaNode[] = [];
  /** Shared memories the rule being built added stop nodes to, and those stop nodes. */
  private grownAlphas: AlphaNode[] = [];
  private readonly grownStops = new Set<PatternNode>();

  constructor(
    /** Facts currently in working memory, oldest first (to fill new alpha memories). */
    private readonly factsOf: (relation: string) => Iterable<Fact>,
  ) {}

  /** Runs a new fact through its relation's pattern tree and the joins below. */
  assertFact(fact: Fact): void {
    const net = this.nets.get(fact.relation);
    if (!net) return;
    // Named in CLIPS's [FACTMCH1] message should a pattern test fail to evaluate.
    setMatchingFact(fact);
    net.match(fact, deliver);
    finishWalk();
  }

  /** Removes a fact's matches and everything built on them, newest match first as CLIPS does. */
  retractFact(fact: Fact): void {
    const matches = fact.matches as AlphaMatch[];
    for (let i = matches.length - 1; i >= 0; i--) unmatch(matches[i] as AlphaMatch);
    fact.matches = [];
  }

  /**
   * An instance's slots changed (its fact holds the new values): the matches of the object
   * patterns that name a changed slot are retracted, newest first, and the instance runs through
   * those patterns again; the other patterns keep their matches (CLIPS 6.30, objrtmch.c).
   */
  rematch(fact: Fact, changed: readonly number[]): void {
    const hit = (a: AlphaNode) => a.watched !== null && changed.some((s) => a.watched?.has(s));
    const matches = fact.matches as AlphaMatch[];
    fact.retracted = true;
    try {
      for (let i = matches.length - 1; i >= 0; i--) {
        const am = matches[i] as AlphaMatch;
        if (hit(am.alpha)) unmatch(am);
      }
    } finally {
      fact.retracted = false;
    }
    fact.matches = matches.filter((am) => !hit(am.alpha));
    const net = this.nets.get(fact.relation);
    if (!net) return;
    setMatchingFact(fact);
    net.match(fact, (alpha, f, marks, stop) => {
      if (hit(alpha)) deliver(alpha, f, marks, stop);
    });
    finishWalk();
  }

  /** The alpha memory and stop node of a compiled pattern, created when new. */
  alphaFor(ce: PatternCE, cp: CompiledPattern): { alpha: AlphaNode; stop: PatternNode } {
    let net = this.nets.get(ce.relation);
    if (!net) {
      net = new PatternNet(!ce.template, ce.object !== undefined);
      this.nets.set(ce.relation, net);
    }
    const stop = net.place(cp.steps, []);
    if (stop.alpha) return { alpha: stop.alpha, stop };
    // Bare nodes (no test) of one relation and join hash hold the same facts: CLIPS gives each
    // its own memory, Keel shares one and lets each join see a match once its node has.
    const groupKey = stop.bare === null ? null : `${ce.relation}|${stop.bare}`;
    let alpha = groupKey ? this.shared.get(groupKey) : undefined;
    if (!alpha) {
      alpha = new AlphaNode(`${stop.id}`, ce.relation, cp.join.rightHash);
      if (groupKey) this.shared.set(groupKey, alpha);
      this.freshAlphas.push(alpha);
    }
    if (ce.object) alpha.watched = new Set(ce.object.slots);
    stop.alpha = alpha;
    return { alpha, stop };
  }

  /** Records the stop node a new join will hang from (it is linked in by {@link commit}). */
  hang<T extends AlphaJoin>(node: T, stop: PatternNode): T {
    this.stops.set(node, stop);
    return node;
  }

  /**
   * Links a rule's new joins to their stop nodes. The alpha memories the rule created stay empty
   * until {@link redrive} fills them, as CLIPS leaves a new pattern node's memory to its
   * incremental reset (incrrset.c).
   */
  commit(joins: readonly AlphaJoin[]): void {
    const fresh = new Set(this.freshAlphas);
    const relations = new Set<string>();
    const grown = new Map<AlphaNode, number>();
    for (const node of joins) {
      const stop = this.stops.get(node) as PatternNode;
      const alpha = node.alpha;
      if (stop.succ.length === 0 && stop.bare === null) alpha.members.push(stop);
      if (stop.succ.length === 0 && stop.bare !== null && !fresh.has(alpha)) {
        grown.set(alpha, (grown.get(alpha) ?? 0) + 1);
        this.grownStops.add(stop);
      }
      stop.succ.unshift(node);
      node.rank = stop.rank;
      this.nets.get(alpha.relation)?.use(stop, 1);
      relations.add(alpha.relation);
    }
    for (const relation of relations) this.rankMembers(relation);
    // A shared memory that gained stop nodes: its matches have reached those too.
    // Its new stop nodes are new pattern nodes in CLIPS, filled by the re-run (redrive): until
    // a fact is re-run no join sees its match (only the new rule's nodes run meanwhile).
    for (const [alpha, n] of grown) {
      for (const am of alpha.memory.all()) {
        for (let i = 0; i < n; i++) revisit(am);
        am.reached = 0;
      }
      this.grownAlphas.push(alpha);
    }
  }

  /**
   * Runs the facts already in working memory, oldest first, through the alpha memories the rule
   * created (and only those), each entering its memory and reaching the new joins below as a
   * new fact would: CLIPS's incremental reset (FactsIncrementalReset). A join's memory so holds
   * only the facts older than the one being re-run, so the new rule's activations come in the
   * order the facts would have made them. The caller then calls {@link forgetFresh}, as it does
   * when priming fails before this runs.
   */
  redrive(): void {
    const fresh = new Set(this.freshAlphas);
    const grownStops = this.grownStops;
    const grown = this.grownAlphas;
    if (fresh.size === 0 && grown.length === 0) return;
    const facts: Fact[] = [];
    for (const relation of new Set([...fresh, ...grown].map((a) => a.relation))) {
      for (const fact of this.factsOf(relation)) facts.push(fact);
    }
    facts.sort((a, b) => a.factId - b.factId);
    const only = (alpha: AlphaNode, fact: Fact, marks: readonly Mark[], stop: PatternNode) => {
      if (fresh.has(alpha)) deliver(alpha, fact, marks, stop);
      else if (grownStops.has(stop)) reach(alpha, fact, stop);
    };
    try {
      for (const fact of facts) {
        this.nets.get(fact.relation)?.match(fact, only);
        finishWalk();
      }
    } finally {
      finishWalk();
    }
  }

  /** Forgets what {@link commit} kept for the re-run (and shows every hidden match again). */
  forgetFresh(): void {
    this.freshAlphas = [];
    for (const alpha of this.grownAlphas) {
      for (const am of alpha.memory.all()) am.reached = REACHED_ALL;
    }
    this.grownAlphas = [];
    this.grownStops.clear();
  }

  /**
   * Forgets what a rule that failed before {@link commit} had placed: its joins, the memories it
   * created, and the pattern nodes no committed join uses.
   */
  abandon(joins: readonly AlphaJoin[]): void {
    for (const node of joins) {
      const stop = this.stops.get(node);
      this.stops.delete(node);
      if (stop && stop.succ.length === 0) stop.alpha = null;
    }
    if (this.freshAlphas.length > 0) {
      const fresh = new Set(this.freshAlphas);
      for (const [key, alpha] of this.shared) if (fresh.has(alpha)) this.shared.delete(key);
      this.freshAlphas = [];
    }
    for (const net of this.nets.values()) net.prune();
  }

  /** Takes a join off its stop node and the pattern tree (nodes nobody uses go). */
  unhook(node: AlphaJoin): void {
    const stop = this.stops.get(node);
    if (!stop) return;
    this.stops.delete(node);
    const at = stop.succ.indexOf(node);
    if (at >= 0) stop.succ.splice(at, 1);
    const relation = node.alpha.relation;
    this.nets.get(relation)?.use(stop, -1);
    if (stop.succ.length === 0) stop.alpha = null;
    if (node.alpha.members.length <= 1 && stop.succ.length === 0) {
      for (const [k, a] of this.shared) if (a === node.alpha) this.shared.delete(k);
    }
    this.rankMembers(relation);
    if (stop.bare === null && stop.succ.length === 0) node.alpha.members.length = 0;
  }

  /** Ranks the stop nodes of each memory in walking order, and their joins with them. */
  private rankMembers(relation: string): void {
    const net = this.nets.get(relation);
    if (!net) return;
    const seen = new Set<AlphaNode>();
    for (const root of net.roots) {
      const alpha = root.alpha;
      if (!alpha || root.bare === null || seen.has(alpha)) continue;
      seen.add(alpha);
      const members = net.roots.filter((r) => r.alpha === alpha && r.succ.length > 0);
      alpha.members.length = 0;
      members.forEach((m, i) => {
        m.rank = i;
        for (const j of m.succ) j.rank = i;
        alpha.members.push(m);
      });
    }
  }
}

const NO_MARKS: readonly Mark[] = [];

/** Takes one alpha match out of its memory with what was built on it and what it blocked. */
function unmatch(am: AlphaMatch): void {
  // An entry stands for one or more stop nodes reached in a row; a shared memory's match
  // leaves them last first.
  const start = am.runs?.pop() ?? 0;
  for (let rank = am.visits - 1; rank >= start; rank--) {
    const member = am.alpha.members[rank];
    am.reached = rank;
    if (rank === 0) am.alpha.drop(am);
    if (!member) continue;
    // What was built on the match goes first, then what it blocked (retract.c).
    if (am.firstToken) removeTokensAt(am, rank);
    if (am.blocks) releaseBlocks(am, rank);
  }
  am.visits = start;
}

/** Shared-memory matches made during the current walk (their reach is completed after it). */
const walked: AlphaMatch[] = [];

/** A shared memory's matches made by the walk just ended have now reached all its stop nodes. */
function finishWalk(): void {
  for (const am of walked) {
    am.reached = REACHED_ALL;
    am.alpha.walkFact = null;
    am.alpha.walkMatch = null;
  }
  walked.length = 0;
}

/** Hands a fact that reached a stop node to its alpha memory, then to its joins in order. */
function deliver(alpha: AlphaNode, fact: Fact, marks: readonly Mark[], stop: PatternNode): void {
  let am: AlphaMatch;
  if (stop.bare === null) {
    am = storeMatch(alpha, fact, marks);
    am.reached = REACHED_ALL;
  } else {
    if (alpha.walkFact === fact) {
      am = alpha.walkMatch as AlphaMatch;
      revisit(am);
    } else {
      am = storeMatch(alpha, fact, marks);
      alpha.walkFact = fact;
      alpha.walkMatch = am;
      walked.push(am);
    }
    am.reached = stop.rank + 1;
  }
  const succ = stop.succ;
  for (let i = 0; i < succ.length; i++) (succ[i] as RightInput).rightActivate(am);
}

/**
 * A re-run fact reached a new stop node of a shared memory that already held it: the match
 * shows to the joins up to that node's rank (the rest of the walk shows it to all) and the
 * node's joins take it as a new match.
 */
function reach(alpha: AlphaNode, fact: Fact, stop: PatternNode): void {
  const am = (fact.matches as AlphaMatch[]).find((m) => m.alpha === alpha);
  if (!am) return;
  if (am.reached < stop.rank + 1) am.reached = stop.rank + 1;
  if (alpha.walkMatch !== am) {
    alpha.walkMatch = am;
    walked.push(am);
  }
  const succ = stop.succ;
  for (let i = 0; i < succ.length; i++) (succ[i] as RightInput).rightActivate(am);
}

/** A shared memory's match reached one more of its stop nodes. */
function revisit(am: AlphaMatch): void {
  const list = am.fact.matches;
  if (list[list.length - 1] !== am) {
    if (!am.runs) am.runs = [0];
    am.runs.push(am.visits);
    list.push(am);
  }
  am.visits++;
}

function storeMatch(alpha: AlphaNode, fact: Fact, marks: readonly Mark[]): AlphaMatch {
  // The walk reuses its markers; keep a copy only when a multifield node bound something.
  const am = new AlphaMatch(fact, marks.length ? marks.map((m) => ({ ...m })) : NO_MARKS, alpha);
  alpha.store(am);
  fact.matches.push(am);
  return am;
}

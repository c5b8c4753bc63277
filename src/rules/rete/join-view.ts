/**
 * A rule's joins as CLIPS 6.30 lays them out (rulebld.c), read back from Keel's network for the
 * `matches` and `refresh` commands: CLIPS folds a test CE into the join before it, gives a test
 * CE that starts the rule or a group a join of its own without a pattern, and starts a rule
 * without a pattern (or led by merged test CEs) with such a join. The order is CLIPS's
 * (rulecom.c EnvBetaJoins): from the rule's last join back, into a group's sub-network at its
 * join from the right, so a group's joins come before the join that takes them.
 */
import { JoinNode, type TerminalNode, TestNode } from "./beta.js";
import { NandNode, NegativeNode } from "./blocking.js";
import {
  type AlphaMatch,
  type AlphaNode,
  type LeftInput,
  matchesOf,
  type Token,
  type TokenSource,
} from "./memory.js";
import { heldBy } from "./prime.js";

/** One of CLIPS's joins. */
export interface ClipsJoin {
  /** The Keel node it stands for (null: a join without a node, see {@link joinView}). */
  readonly node: LeftInput | null;
  /** The Keel node whose output is this join's output (the last test CE folded into it). */
  out: TokenSource | null;
  /** A join from the right: the last join of its group's sub-network. */
  readonly right: ClipsJoin | null;
  /** The join before it (CLIPS's lastLevel). */
  readonly lastLevel: ClipsJoin | null;
  /** The alpha memory of a pattern's join; null for a join without a pattern or from the right. */
  readonly alpha: AlphaNode | null;
  /** A positive pattern: its partial match element is the fact (else `*`). */
  readonly positive: boolean;
  /** The element of Keel's token this join's match is at (-1: none). */
  readonly slot: number;
  /** A join without a node standing for merged test CEs: whether they hold. */
  readonly holds?: () => boolean;
}

/** A rule's joins in CLIPS's order. */
export interface JoinView {
  readonly joins: readonly ClipsJoin[];
  /** The rule's last join (its output is the rule's complete matches). */
  readonly last: ClipsJoin | null;
}

/** What joinView needs of a compiled rule (rete/network.ts BuiltRule). */
export interface RulePath {
  readonly path: readonly { readonly node: LeftInput; readonly parent: TokenSource }[];
  readonly terminal: TerminalNode;
  /** Leading test CEs merged into the first pattern's join: whether they hold. */
  readonly leadingTests?: () => boolean;
}

/**
 * CLIPS's joins of one disjunct. `leading` is true when test CEs led the rule and Keel merged
 * them into the first pattern's join: CLIPS has a join of its own for them.
 */
export function joinView(rule: RulePath, root: TokenSource, leading: boolean): JoinView {
  const parents = new Map<LeftInput | TokenSource, TokenSource>();
  for (const { node, parent } of rule.path) parents.set(node, parent);
  const joins: ClipsJoin[] = [];
  const byNode = new Map<TokenSource, ClipsJoin>();
  const end = parents.get(rule.terminal) ?? root;
  const nodes = collect(end as unknown as LeftInput, root, parents);
  // A rule without a node of its own, or led by merged tests, starts with a join without one.
  const start: ClipsJoin | null =
    nodes.length === 0 || (leading && !(nodes[0]?.node instanceof TestNode))
      ? emptyJoin(rule.leadingTests ?? null)
      : null;
  if (start) joins.push(start);
  for (const { node, first } of nodes) {
    const parent = parents.get(node) as TokenSource;
    if (node instanceof TestNode && !first) {
      // Folded into the join before it: that join's output is this node's.
      const owner = byNode.get(parent);
      if (owner) {
        owner.out = node;
        byNode.set(node, owner);
        continue;
      }
    }
    const lastLevel = parent === root ? start : (byNode.get(parent) ?? null);
    const right =
      node instanceof NandNode ? (byNode.get(node.inputParent as TokenSource) ?? null) : null;
    const alpha = node instanceof JoinNode || node instanceof NegativeNode ? node.alpha : null;
    const join: ClipsJoin = {
      node,
      out: node as unknown as TokenSource,
      right,
      lastLevel,
      alpha,
      positive: node instanceof JoinNode,
      slot: (node as unknown as TokenSource).depth - 1,
    };
    joins.push(join);
    byNode.set(node as unknown as TokenSource, join);
  }
  return { joins, last: joins[joins.length - 1] ?? null };
}

function emptyJoin(holds: (() => boolean) | null): ClipsJoin {
  return {
    node: null,
    out: null,
    right: null,
    lastLevel: null,
    alpha: null,
    positive: false,
    slot: -1,
    ...(holds ? { holds } : {}),
  };
}

/**
 * The nodes from just below `stop` down to `end`, a group's nodes before its join from the
 * right; `first` marks a node that starts the rule or a group.
 */
function collect(
  end: LeftInput,
  stop: TokenSource,
  parents: ReadonlyMap<LeftInput | TokenSource, TokenSource>,
): { node: LeftInput; first: boolean }[] {
  const out: { node: LeftInput; first: boolean }[] = [];
  let n: LeftInput | TokenSource = end;
  while (n !== stop) {
    const p = parents.get(n);
    if (p === undefined) break;
    out.unshift({ node: n as LeftInput, first: false });
    if (n instanceof NandNode && n.inputParent) {
      out.unshift(...collect(n.inputParent as unknown as LeftInput, p, parents));
    }
    n = p;
  }
  const head = out[0];
  if (head) head.first = true;
  return out;
}

/** CLIPS's count of a join's patterns (rulecom.c CountPatterns). */
export function countPatterns(join: ClipsJoin, followRight: boolean): number {
  let count = join.right !== null && !followRight ? 1 : 0;
  let follow = followRight;
  for (let j: ClipsJoin | null = join; j !== null; follow = true) {
    if (j.right !== null) j = follow ? j.right : j.lastLevel;
    else {
      count++;
      j = j.lastLevel;
    }
  }
  return count;
}

/** How many joins lead to `join`, itself included (CLIPS's CE number of its partial matches). */
export function ceNumber(join: ClipsJoin): number {
  let n = 0;
  for (let j: ClipsJoin | null = join; j !== null; j = j.lastLevel) n++;
  return n;
}

/**
 * The partial matches join `index` of a view holds now, in the order CLIPS lists the memory of
 * the join after it (its left memory, or a join from the right's right memory; the rule's last
 * join: the terminal's): as that memory took them (prime.ts heldBy), and in a hashed memory
 * bucket by bucket as CLIPS files them (a left memory newest first in each, a right one oldest
 * first).
 */
export function joinMemory(
  view: JoinView,
  index: number,
  terminal: TerminalNode,
  root: Token,
): Token[] {
  const join = view.joins[index];
  const out = join?.out ?? null;
  if (!join || out === null) return [];
  const next = view.joins[index + 1];
  const right = next !== undefined && next.right === join;
  const successor = !next ? terminal : right ? (next.node as NandNode).input : next.node;
  if (successor === null) return [];
  return heldBy(successor, out, root);
}

/** True when a join without a pattern has let a partial match through. */
export function hasOutput(join: ClipsJoin, root: Token): boolean {
  const out = join.out;
  if (out === null) return join.holds?.() ?? true;
  for (const stack = [root]; stack.length > 0; ) {
    const t = stack.pop() as Token;
    if (t.source === out && t !== root) return true;
    for (let c = t.firstChild; c; c = c.nextSibling) if (!c.dead) stack.push(c);
  }
  return false;
}

/** A join's partial match as CLIPS prints it: `f-1,*,f-3` (an instance: `[name]`). */
export function partialMatchText(join: ClipsJoin, t: Token): string {
  const chain: ClipsJoin[] = [];
  for (let j: ClipsJoin | null = join; j !== null; j = j.lastLevel) chain.unshift(j);
  const length = Math.max(0, ...chain.map((j) => j.slot + 1));
  const matches = matchesOf(t, length);
  return chain
    .map((j) => {
      const m = j.positive && j.slot >= 0 ? matches[j.slot] : null;
      return m ? m.fact.label() : "*";
    })
    .join(",");
}

/** A pattern join's alpha memory, oldest fact first. */
export function alphaMatches(join: ClipsJoin): AlphaMatch[] {
  if (join.alpha === null) return [];
  const list = [...join.alpha.memory.all()].filter((am) => !am.dead);
  return list.sort((a, b) => a.fact.factId - b.fact.factId);
}

import type { CE, Expr, PatternCE } from "../ast.js";
import { rulesLoadError } from "../errors.js";
import { compileExpr, type EvalHost } from "../evaluate.js";
import type { Fact } from "../facts.js";
import { FALSE } from "../values.js";
import {
  ConjunctionNode,
  JoinNode,
  NegativeNode,
  type ParentNode,
  RootNode,
  TerminalNode,
  TestNode,
} from "./beta.js";
import {
  type AlphaMatch,
  AlphaNode,
  type LeftInput,
  outputOf,
  type RightInput,
  releaseBlocks,
  removeToken,
  type Token,
  type TokenSource,
} from "./memory.js";
import {
  type CompiledPattern,
  compilePattern,
  exprVars,
  type Scope,
  tokenReader,
} from "./pattern.js";
import { type Mark, PatternNet, type PatternNode } from "./pattern-net.js";

type Display = "fact" | "star" | "none";

interface PathEntry {
  readonly node: LeftInput;
  readonly parent: TokenSource;
}

/** The result of compiling one rule (one disjunct of an `or`). */
export interface BuiltRule {
  readonly terminal: TerminalNode;
  readonly scope: Scope;
  readonly display: Display[];
  /** Nodes this rule uses, top to bottom, with their parents, for removal. */
  readonly path: PathEntry[];
}

interface Shareable {
  shareKey?: string;
  users?: number;
}

/** A feeder for a conjunction's sub-network: the conjunction node hands its tokens to it. */
class SubnetEntry implements TokenSource, LeftInput {
  readonly children: LeftInput[] = [];
  addChild(c: LeftInput): void {
    this.children.unshift(c);
  }
  leftActivate(t: Token): void {
    for (const c of this.children.slice()) c.leftActivate(t);
  }
  leftRemove(t: Token): void {
    for (const c of this.children) c.leftRemove(t);
  }
}

/**
 * The Rete network: a pattern tree per relation (shaped and walked as CLIPS does, so activations
 * come in CLIPS's order), alpha memories at its stop nodes, shared join nodes, and the root every
 * rule starts from. Asserting a fact visits only its relation's tree and the joins below the
 * alpha memories it enters.
 */
export class Network {
  readonly root = new RootNode();
  private readonly nets = new Map<string, PatternNet>();
  /** The pattern-tree stop node each join hangs from. */
  private readonly stops = new Map<JoinNode | NegativeNode, PatternNode>();
  /** Memories shared by bare stop nodes, by relation and join hash. */
  private readonly shared = new Map<string, AlphaNode>();
  /** Nodes created by the rule being built; primed once it is complete. */
  private fresh: { node: LeftInput; parent: TokenSource }[] = [];
  private freshAlphas: AlphaNode[] = [];

  constructor(
    private readonly host: () => EvalHost,
    /** Facts currently in working memory, oldest first (to fill new alpha memories). */
    private readonly factsOf: (relation: string) => Iterable<Fact>,
  ) {}

  /** Runs a new fact through its relation's pattern tree and the joins below. */
  assertFact(fact: Fact): void {
    const net = this.nets.get(fact.relation);
    if (!net) return;
    net.match(fact, deliver);
    // A shared memory's match has now reached all its stop nodes.
    for (const am of walked) {
      am.reached = Number.POSITIVE_INFINITY;
      am.alpha.walkFact = null;
      am.alpha.walkMatch = null;
    }
    walked.length = 0;
  }

  /** Removes a fact's matches and everything built on them, newest match first as CLIPS does. */
  retractFact(fact: Fact): void {
    const matches = fact.matches as AlphaMatch[];
    for (let i = matches.length - 1; i >= 0; i--) {
      const am = matches[i] as AlphaMatch;
      // An entry stands for one or more stop nodes reached in a row; a shared memory's match
      // leaves them last first.
      const start = am.runs?.pop() ?? 0;
      for (let rank = am.visits - 1; rank >= start; rank--) {
        const member = am.alpha.members[rank];
        am.reached = rank;
        if (rank === 0) am.alpha.drop(am);
        if (!member) continue;
        // What was built on the match goes first, then what it blocked (retract.c).
        const succ = member.succ;
        if (am.firstToken) for (let j = 0; j < succ.length; j++) succ[j]?.rightRetract(am);
        if (am.blocks) releaseBlocks(am, rank);
      }
      am.visits = start;
    }
    fact.matches = [];
  }

  private alphaFor(ce: PatternCE, cp: CompiledPattern): { alpha: AlphaNode; stop: PatternNode } {
    let net = this.nets.get(ce.relation);
    if (!net) {
      net = new PatternNet(!ce.template);
      this.nets.set(ce.relation, net);
    }
    const stop = net.place(cp.steps, []);
    if (stop.alpha) return { alpha: stop.alpha, stop };
    // Bare nodes (no test) of one relation and join hash hold the same facts: CLIPS gives each
    // its own memory, Keel shares one and lets each join see a match once its node has.
    const groupKey = stop.bare === null ? null : `${ce.relation}|${stop.bare}`;
    let alpha = groupKey ? this.shared.get(groupKey) : undefined;
    if (!alpha) {
      alpha = new AlphaNode(`${stop.id}`, ce.relation, cp.join.rightKey);
      if (groupKey) this.shared.set(groupKey, alpha);
      this.freshAlphas.push(alpha);
    }
    stop.alpha = alpha;
    return { alpha, stop };
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

  private attach<T extends LeftInput & Shareable>(
    parent: TokenSource & { addChild?(c: LeftInput): void },
    key: string,
    make: () => T,
    path: PathEntry[],
  ): T {
    for (const c of parent.children) {
      const s = c as LeftInput & Shareable;
      if (s.shareKey === key) {
        s.users = (s.users ?? 0) + 1;
        path.push({ node: c, parent });
        return c as T;
      }
    }
    const node = make();
    node.shareKey = key;
    node.users = 1;
    if (parent.addChild) parent.addChild(node);
    else parent.children.unshift(node);
    this.fresh.push({ node, parent });
    path.push({ node, parent });
    return node;
  }

  /**
   * Compiles one disjunct's conditional elements below the root and attaches a terminal.
   * New nodes are primed with the tokens and facts that already exist.
   */
  buildRule(
    ruleName: string,
    ces: CE[],
    onActivate: (t: Token) => void,
    onRemove: (t: Token) => void,
  ): BuiltRule {
    this.fresh = [];
    this.freshAlphas = [];
    const scope: Scope = new Map();
    const display: Display[] = [];
    const path: PathEntry[] = [];
    const counter = { n: 0 };
    const end = this.chain(ruleName, ces, this.root, 0, scope, display, path, counter, new Set());
    const terminal = new TerminalNode(onActivate, onRemove);
    const last = end.parent as TokenSource & { addChild?(c: LeftInput): void };
    if (last.addChild) last.addChild(terminal);
    else last.children.unshift(terminal);
    this.fresh.push({ node: terminal, parent: end.parent });
    path.push({ node: terminal, parent: end.parent });
    this.prime();
    return { terminal, scope, display, path };
  }

  /** Drops the root token and everything built on it, then re-derives from a fresh one (reset). */
  resetRoot(): void {
    removeToken(this.root.token);
    const t = this.root.renew();
    // CLIPS re-creates the activations of rules without patterns before those led by not/forall.
    const kids = this.root.children.slice();
    for (const c of kids) if (c instanceof TerminalNode || c instanceof TestNode) c.leftActivate(t);
    for (const c of kids)
      if (!(c instanceof TerminalNode || c instanceof TestNode)) c.leftActivate(t);
  }

  /** Removes a rule's nodes that no other rule shares. */
  detach(rule: BuiltRule): void {
    for (let i = rule.path.length - 1; i >= 0; i--) {
      const { node, parent } = rule.path[i] as PathEntry;
      const s = node as LeftInput & Shareable;
      s.users = (s.users ?? 1) - 1;
      if (s.users > 0 && !(node instanceof TerminalNode)) continue;
      const at = parent.children.indexOf(node);
      if (at >= 0) parent.children.splice(at, 1);
      if (node instanceof JoinNode || node instanceof NegativeNode) this.unhook(node);
      for (const t of outputOf(node as unknown as TokenSource, this.root.token)) removeToken(t);
    }
  }

  private onStop<T extends JoinNode | NegativeNode>(node: T, stop: PatternNode): T {
    this.stops.set(node, stop);
    return node;
  }

  /** Takes a join off its stop node and the pattern tree (nodes nobody uses go). */
  private unhook(node: JoinNode | NegativeNode): void {
    if (node instanceof NegativeNode) node.detached = true;
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

  private prime(): void {
    const fresh = new Set(this.freshAlphas);
    const relations = new Set(this.freshAlphas.map((a) => a.relation));
    // New alpha memories take the facts already in working memory, oldest first, without
    // activating anything; the joins are primed from their parents below.
    const store = (alpha: AlphaNode, fact: Fact, marks: readonly Mark[], stop: PatternNode) => {
      if (!fresh.has(alpha)) return;
      if (stop.bare !== null && alpha.walkFact === fact) {
        // A shared memory holds a fact once, with an entry per stop node it reached.
        revisit(alpha.walkMatch as AlphaMatch);
        return;
      }
      const am = storeMatch(alpha, fact, marks);
      am.reached = Number.POSITIVE_INFINITY;
      alpha.walkFact = fact;
      alpha.walkMatch = am;
    };
    for (const relation of relations) {
      const net = this.nets.get(relation);
      if (net) for (const fact of this.factsOf(relation)) net.match(fact, store);
    }
    for (const alpha of this.freshAlphas) {
      alpha.walkFact = null;
      alpha.walkMatch = null;
    }
    const grown = new Map<AlphaNode, number>();
    const freshSet = new Set(this.fresh.map((f) => f.node));
    for (const { node } of this.fresh) {
      if (node instanceof JoinNode || node instanceof NegativeNode) {
        const stop = this.stops.get(node) as PatternNode;
        const alpha = node.alpha;
        if (stop.succ.length === 0 && stop.bare === null) alpha.members.push(stop);
        if (stop.succ.length === 0 && stop.bare !== null && !fresh.has(alpha)) {
          grown.set(alpha, (grown.get(alpha) ?? 0) + 1);
        }
        stop.succ.unshift(node);
        node.rank = stop.rank;
        this.nets.get(alpha.relation)?.use(stop, 1);
        relations.add(alpha.relation);
      }
    }
    for (const relation of relations) this.rankMembers(relation);
    // A shared memory that gained stop nodes: its matches have reached those too.
    for (const [alpha, n] of grown) {
      for (const am of alpha.index.live()) {
        for (let i = 0; i < n; i++) revisit(am);
      }
    }
    // Feed existing tokens to the topmost new nodes; the rest is reached through them.
    for (const { node, parent } of this.fresh) {
      if (freshSet.has(parent as unknown as LeftInput)) continue;
      for (const t of tokensOf(parent, this.root)) node.leftActivate(t);
    }
    this.fresh = [];
    this.freshAlphas = [];
  }

  private chain(
    rule: string,
    ces: CE[],
    parent: ParentNode | SubnetEntry,
    depth: number,
    scope: Scope,
    display: Display[],
    path: PathEntry[],
    counter: { n: number },
    external: ReadonlySet<string>,
  ): { parent: ParentNode | SubnetEntry; depth: number } {
    let pendingTests: Expr[] = [];
    for (let i = 0; i < ces.length; i++) {
      const ce = ces[i] as CE;
      const construct = `defrule ${rule}`;
      if (
        ce.type === "test" &&
        parent === this.root &&
        display.length === 0 &&
        canMergeAhead(ces, i)
      ) {
        // A leading test CE is evaluated with the first pattern's join, as CLIPS does.
        pendingTests.push(ce.expr);
        continue;
      }
      switch (ce.type) {
        case "pattern": {
          counter.n++;
          const tests = pendingTests;
          pendingTests = [];
          while (
            ces[i + 1]?.type === "test" &&
            !refersTo((ces[i + 1] as { expr: Expr }).expr, ce.addressVar)
          ) {
            tests.push((ces[i + 1] as { expr: Expr }).expr);
            i++;
          }
          const cp = compilePattern(ce, scope, {
            host: this.host,
            rule,
            patternNo: counter.n,
            construct,
            tests,
            external,
          });
          const { alpha, stop } = this.alphaFor(ce, cp);
          const key = `J|${stop.id}|${cp.join.key}`;
          parent = this.attach(
            parent,
            key,
            () => this.onStop(new JoinNode(alpha, cp.join), stop),
            path,
          );
          for (const [name, b] of cp.bindings) scope.set(name, { slot: depth, ...b });
          display.push("fact");
          depth++;
          break;
        }
        case "test": {
          const used = exprVars(ce.expr);
          const fn = compileExpr(ce.expr, {
            resolve: (name) => {
              const loc = scope.get(name);
              return loc ? tokenReader(loc) : null;
            },
            rhs: false,
            construct,
          });
          const host = this.host;
          const places = [...used].map((u) => {
            const loc = scope.get(u);
            return loc ? `${u}=${loc.slot}:${loc.key}` : u;
          });
          const key = `T|${JSON.stringify(ce.expr, (k, v) => (k === "pos" ? undefined : v))}|${places.join()}`;
          parent = this.attach(
            parent,
            key,
            () =>
              new TestNode(
                key,
                (t) => fn({ tok: t.matches, local: null, rhs: null, host: host() }) !== FALSE,
              ),
            path,
          );
          display.push("none");
          depth++;
          break;
        }
        case "and":
          ({ parent, depth } = this.chain(
            rule,
            ce.ces,
            parent,
            depth,
            scope,
            display,
            path,
            counter,
            external,
          ));
          break;
        case "not":
        case "exists": {
          const inner = ce.type === "not" ? [ce.ce] : ce.ces;
          const exists = ce.type === "exists";
          const only = inner.length === 1 ? inner[0] : undefined;
          if (only?.type === "pattern") {
            counter.n++;
            const cp = compilePattern(only, scope, {
              host: this.host,
              rule,
              patternNo: counter.n,
              construct,
              // CLIPS reads (exists p) as (not (not p)): p sits one group deeper.
              external: exists ? widen(external, scope) : external,
            });
            const { alpha, stop } = this.alphaFor(only, cp);
            const key = `${exists ? "E" : "N"}|${stop.id}|${cp.join.key}`;
            parent = this.attach(
              parent,
              key,
              () => this.onStop(new NegativeNode(alpha, cp.join, exists), stop),
              path,
            );
          } else {
            // A not of one pattern stays in its group; anything else opens a deeper one.
            const lone = ce.type === "not" && singleCE(inner)?.type === "pattern";
            const ext = lone ? external : widen(external, scope);
            parent = this.conjunction(
              rule,
              inner,
              parent,
              depth,
              scope,
              path,
              counter,
              exists,
              ext,
            );
          }
          display.push("star");
          depth++;
          break;
        }
        case "forall": {
          const negated: CE = {
            type: "not",
            pos: ce.pos,
            ce: {
              type: "and",
              pos: ce.pos,
              ces: [
                ce.first,
                { type: "not", pos: ce.pos, ce: { type: "and", pos: ce.pos, ces: ce.rest } },
              ],
            },
          };
          ({ parent, depth } = this.chain(
            rule,
            [negated],
            parent,
            depth,
            scope,
            display,
            path,
            counter,
            external,
          ));
          break;
        }
        case "or":
          throw rulesLoadError(ce.pos, "an (or …) inside not, exists or forall is not supported", {
            construct,
            hint: "Rewrite (not (or A B)) as (not A) (not B).",
          });
      }
    }
    return { parent, depth };
  }

  private conjunction(
    rule: string,
    inner: CE[],
    parent: ParentNode | SubnetEntry,
    depth: number,
    scope: Scope,
    path: PathEntry[],
    counter: { n: number },
    exists: boolean,
    external: ReadonlySet<string>,
  ): ConjunctionNode {
    const key = `C|${Math.random()}`;
    const node = this.attach(parent, key, () => new ConjunctionNode(key, depth, exists), path);
    const entry = new SubnetEntry();
    node.subnet = entry;
    const innerScope: Scope = new Map(scope);
    const end = this.chain(rule, inner, entry, depth, innerScope, [], path, counter, external);
    const last = end.parent as TokenSource & { addChild?(c: LeftInput): void };
    if (last.addChild) last.addChild(node.partner);
    else last.children.unshift(node.partner);
    return node;
  }
}

const NO_MARKS: readonly Mark[] = [];

/** Shared-memory matches made during the current walk (their reach is completed after it). */
const walked: AlphaMatch[] = [];

/** Hands a fact that reached a stop node to its alpha memory, then to its joins in order. */
function deliver(alpha: AlphaNode, fact: Fact, marks: readonly Mark[], stop: PatternNode): void {
  let am: AlphaMatch;
  if (stop.bare === null) {
    am = storeMatch(alpha, fact, marks);
    am.reached = Number.POSITIVE_INFINITY;
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
  const am: AlphaMatch = {
    fact,
    // The walk reuses its markers; keep a copy only when a multifield node bound something.
    marks: marks.length ? marks.map((m) => ({ ...m })) : NO_MARKS,
    key: undefined,
    alpha,
    firstToken: null,
    dead: false,
    blocks: null,
    reached: 0,
    visits: 1,
    runs: null,
  };
  alpha.store(am);
  fact.matches.push(am);
  return am;
}

/** The variables of `scope` added to `external`. */
function widen(external: ReadonlySet<string>, scope: Scope): ReadonlySet<string> {
  const out = new Set(external);
  for (const name of scope.keys()) out.add(name);
  return out;
}

/** The one conditional element of a list, looking through single-element `and`s. */
function singleCE(ces: CE[]): CE | null {
  let list = ces;
  while (list.length === 1 && (list[0] as CE).type === "and") list = (list[0] as { ces: CE[] }).ces;
  return list.length === 1 ? (list[0] as CE) : null;
}

/** True when a pattern follows position `i` with only test CEs between. */
function canMergeAhead(ces: CE[], i: number): boolean {
  for (let j = i + 1; j < ces.length; j++) {
    const t = (ces[j] as CE).type;
    if (t === "pattern") return true;
    if (t !== "test") return false;
  }
  return false;
}

function refersTo(e: Expr, name: string | null): boolean {
  return name !== null && exprVars(e).has(name);
}

/** The tokens a node currently outputs (its children's left input). */
function tokensOf(parent: TokenSource, root: RootNode): Token[] {
  if (parent === root) return [root.token];
  return outputOf(parent, root.token);
}

/**
 * The Rete network: the alpha side (alpha-net.ts) and the join network below the root that every
 * rule starts from, built as CLIPS builds it (rulebld.c) so that activations come in CLIPS's
 * order: a rule's conditional elements become a path of joins, shared with other rules while
 * they are identical; a not/exists over several CEs is a sub-network joined from the right.
 */
import type { CE, Expr, PatternCE } from "../ast.js";
import { rulesLoadError } from "../errors.js";
import { compileExpr, type EvalHost } from "../evaluate.js";
import type { Fact } from "../facts.js";
import { FALSE } from "../values.js";
import { type AlphaJoin, AlphaNet } from "./alpha-net.js";
import { JoinNode, RootNode, type TerminalHooks, TerminalNode, TestNode } from "./beta.js";
import { NandNode, NegativeNode } from "./blocking.js";
import { type Negation, nandExternals, nandJoin, negationOf } from "./groups.js";
import { hashByParts } from "./join-build.js";
import { type LeftInput, outputOf, removeToken, type TokenSource } from "./memory.js";
import { compilePattern } from "./pattern.js";
import { exprVars, type Scope, tokenReader } from "./pattern-context.js";
import { type PrimeContext, primeFromSibling } from "./prime.js";

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
  /**
   * Leading test CEs merged into the first pattern's join: whether they hold now (CLIPS gives
   * them a join of their own, which `matches` lists).
   */
  leadingTests?: () => boolean;
}

/** A node another rule may share: its key among its parent's children, and how many use it. */
interface Shareable {
  shareKey?: string;
  users?: number;
  /** Names the node in the keys of nodes that depend on it (a nand join names its group's end). */
  id?: number;
}

/** What building one rule carries along. */
interface Build {
  readonly rule: string;
  readonly construct: string;
  readonly path: PathEntry[];
  /** Pattern CEs so far (errors name the pattern by number). */
  patterns: number;
  /** The variables each nand join compares. */
  readonly externals: Map<Negation, string[]>;
  /** Test CEs that lead the rule, merged into its first pattern's join. */
  leading?: Expr[];
  /**
   * Top-level `(not pattern)` and `(exists pattern)` nodes pass their input token on (see
   * BlockingNode.passes). Not in a rule with logical CEs: their support needs a token per CE.
   */
  readonly passes: boolean;
}

let nodeIds = 0;

export class Network {
  readonly root = new RootNode();
  private readonly alphas: AlphaNet;
  /** Each node's children by sharing key, so a rule finds a node to share without a scan. */
  private readonly byKey = new Map<TokenSource, Map<string, LeftInput>>();
  /** Nodes created by the rule being built; primed once it is complete. */
  private fresh: LeftInput[] = [];
  /** The paths of the rule's disjuncts built so far (primed together by primeRule). */
  private pending: PathEntry[][] = [];

  constructor(
    private readonly host: () => EvalHost,
    /** Facts currently in working memory, oldest first (to fill new alpha memories). */
    factsOf: (relation: string) => Iterable<Fact>,
  ) {
    this.alphas = new AlphaNet(factsOf);
  }

  /**
   * How {@link primeRule} fills a new rule: "prime" with what exists (CLIPS's incremental
   * reset); "link" only links it, so what comes later reaches it (incremental reset off);
   * "unrooted" links it without the root token, given later by {@link giveRoot} (a restore).
   */
  primeMode: "prime" | "link" | "unrooted" = "prime";

  /**
   * Above 0 while a fact or instance goes through the network or a new rule is primed: CLIPS's
   * MatchOperationInProgress, under which a pattern's function may not assert or retract.
   */
  matching = 0;

  /** Runs a new fact through its relation's pattern tree and the joins below. */
  assertFact(fact: Fact): void {
    this.matching++;
    try {
      this.alphas.assertFact(fact);
    } finally {
      this.matching--;
    }
  }

  /** Removes a fact's matches and everything built on them. */
  retractFact(fact: Fact): void {
    this.matching++;
    try {
      this.alphas.retractFact(fact);
    } finally {
      this.matching--;
    }
  }

  /** An instance's object-template slots `changed`: re-matches the patterns that name them. */
  rematch(fact: Fact, changed: readonly number[]): void {
    this.matching++;
    try {
      this.alphas.rematch(fact, changed);
    } finally {
      this.matching--;
    }
  }

  /**
   * Compiles one disjunct's conditional elements below the root and attaches a terminal. The
   * new nodes stay empty until {@link primeRule}, which fills every disjunct of the rule at
   * once (CLIPS resets a rule's disjuncts incrementally together).
   */
  buildRule<E, I>(
    rule: string,
    ces: CE[],
    /** What the rule's terminal tells, with `entry` and `info`, of each token it gains or loses. */
    hooks: TerminalHooks<E, I>,
    entry: E,
    info: I,
    /** How many leading CEs are logical (the logical CE): tokens are then made for not CEs too. */
    logical = 0,
  ): BuiltRule {
    const scope: Scope = new Map();
    const display: Display[] = [];
    const b: Build = {
      rule,
      construct: `defrule ${rule}`,
      path: [],
      patterns: 0,
      externals: nandExternals(ces),
      passes: logical === 0,
    };
    const terminal: TerminalNode = new TerminalNode(hooks, entry, info);
    const built: BuiltRule = { terminal, scope, display, path: b.path };
    try {
      const end = this.chain(b, ces, this.root, 0, scope, display, new Set(), true);
      if (b.leading) built.leadingTests = this.constantTests(b.leading, b.construct);
      link(end.parent, terminal, false);
      this.fresh.push(terminal);
      b.path.push({ node: terminal, parent: end.parent });
    } catch (error) {
      // Take back what this disjunct had built, so a failed definition leaves the network as it
      // was (the caller takes back the rule's other disjuncts with abandonRule).
      this.abandon(b.path);
      throw error;
    }
    this.pending.push(b.path);
    return built;
  }

  /**
   * Fills the new nodes of the disjuncts built since the last call with the tokens and facts
   * that already exist. When it throws, the caller detaches the rule's disjuncts.
   */
  primeRule(): void {
    const paths = this.pending;
    this.pending = [];
    this.matching++;
    try {
      if (this.primeMode === "prime") this.prime(paths);
      else this.link(paths, this.primeMode === "link");
    } finally {
      this.matching--;
      this.fresh = [];
      this.alphas.forgetFresh();
    }
  }

  /** Takes back the disjuncts built since the last {@link primeRule} (a rule that failed). */
  abandonRule(): void {
    const paths = this.pending;
    this.pending = [];
    for (let i = paths.length - 1; i >= 0; i--) this.abandon(paths[i] as PathEntry[]);
    this.fresh = [];
    this.alphas.forgetFresh();
  }

  /** Unlinks the nodes of a path that was never primed (a rule that failed while being built). */
  private abandon(path: readonly PathEntry[]): void {
    const joins: AlphaJoin[] = [];
    for (let i = path.length - 1; i >= 0; i--) {
      const { node, parent } = path[i] as PathEntry;
      const s = node as LeftInput & Shareable;
      s.users = (s.users ?? 1) - 1;
      if (s.users > 0) continue;
      unlink(parent, node);
      if (s.shareKey !== undefined) this.byKey.get(parent)?.delete(s.shareKey);
      if (node instanceof NandNode) unlink(node.inputParent, node.input);
      if (node instanceof JoinNode || node instanceof NegativeNode) joins.push(node);
    }
    this.alphas.abandon(joins);
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

  /**
   * How CLIPS's reset treats the rule before the facts go (rulebsc.c ResetDefrules): "right"
   * for a rule without patterns (a right prime join), "left" for one led by a not over a
   * pattern or a group, forall included (a left prime join), else null.
   */
  primeKind(rule: BuiltRule): "right" | "left" | null {
    if (rule.path.every((p) => p.node instanceof TerminalNode || p.node instanceof TestNode)) {
      return "right";
    }
    const led = rule.path.some(
      (p) =>
        p.parent === this.root &&
        (p.node instanceof NegativeNode || p.node instanceof NandNode) &&
        !p.node.exists,
    );
    return led ? "left" : null;
  }

  /** Removes a rule's nodes that no other rule shares. */
  detach(rule: BuiltRule): void {
    for (let i = rule.path.length - 1; i >= 0; i--) {
      const { node, parent } = rule.path[i] as PathEntry;
      const s = node as LeftInput & Shareable;
      s.users = (s.users ?? 1) - 1;
      if (s.users > 0 && !(node instanceof TerminalNode)) continue;
      unlink(parent, node);
      if (s.shareKey !== undefined) this.byKey.get(parent)?.delete(s.shareKey);
      if (node instanceof NegativeNode || node instanceof NandNode) node.detached = true;
      if (node instanceof NandNode) unlink(node.inputParent, node.input);
      if (node instanceof JoinNode || node instanceof NegativeNode) this.alphas.unhook(node);
      for (const t of outputOf(node as unknown as TokenSource, this.root.token)) removeToken(t);
    }
  }

  /** The child of `parent` with `key`, shared; or a new one from `make`. */
  private attach<T extends LeftInput & Shareable>(
    parent: TokenSource,
    key: string,
    make: () => T,
    b: Build,
    second = false,
  ): T {
    let children = this.byKey.get(parent);
    if (!children) {
      children = new Map();
      this.byKey.set(parent, children);
    }
    const shared = children.get(key) as (T & Shareable) | undefined;
    if (shared) {
      shared.users = (shared.users ?? 0) + 1;
      b.path.push({ node: shared, parent });
      return shared;
    }
    const node = make();
    node.shareKey = key;
    node.users = 1;
    node.id = ++nodeIds;
    children.set(key, node);
    link(parent, node, second);
    this.fresh.push(node);
    b.path.push({ node, parent });
    return node;
  }

  /**
   * Fills the rule's new nodes with what already exists, in the order CLIPS 6.30's incremental
   * reset does (incrrset.c), so a rule defined after its facts gets its activations in CLIPS's
   * order. First the nodes that hang from nodes other rules already fed are primed, walking the
   * rule from its end upwards (a not/exists group after the join that takes it): a node below
   * the root takes the root token (a first pattern on an existing alpha memory so meets its
   * facts oldest first), one below an existing node takes that node's tokens as a sibling holds
   * them (newest first). Then the facts, oldest first, are re-run through the new alpha memories
   * only, so the joins below meet them one by one as if they had just been asserted.
   */
  private prime(paths: readonly (readonly PathEntry[])[]): void {
    const fresh = new Set<LeftInput | TokenSource>(this.fresh);
    this.alphas.commit(
      this.fresh.filter((n): n is AlphaJoin => n instanceof JoinNode || n instanceof NegativeNode),
    );
    const root = this.root.token;
    const ctx: PrimeContext = { fresh, root };
    const done = new Set<LeftInput>();
    for (const path of paths) this.primePath(path, ctx, done);
    this.alphas.redrive();
  }

  /**
   * Links new nodes without filling them (no incremental reset, incrrset.c): a new pattern's
   * memory starts empty, and a new first join holds the root token only, so the facts asserted
   * later join it and the ones already there do not. A rule led by a not or a test has no such
   * match in CLIPS: it waits for the next reset.
   */
  private link(paths: readonly (readonly PathEntry[])[], rooted: boolean): void {
    this.alphas.commit(
      this.fresh.filter((n): n is AlphaJoin => n instanceof JoinNode || n instanceof NegativeNode),
    );
    if (!rooted) return;
    const fresh = new Set<LeftInput>(this.fresh);
    for (const path of paths) this.holdRoot(path, fresh);
  }

  /** Gives the root token to a linked rule's first joins (see primeMode "unrooted"). */
  giveRoot(rule: BuiltRule): void {
    this.holdRoot(rule.path, null);
  }

  private holdRoot(path: readonly PathEntry[], only: ReadonlySet<LeftInput> | null): void {
    const root = this.root.token;
    for (const { node, parent } of path) {
      if (parent !== this.root || !(node instanceof JoinNode)) continue;
      if (only === null || only.has(node)) node.hold(root);
    }
  }

  /** Primes one disjunct's new nodes, from its end upwards (CheckForPrimableJoins). */
  private primePath(path: readonly PathEntry[], ctx: PrimeContext, done: Set<LeftInput>): void {
    const { fresh, root } = ctx;
    for (let i = path.length - 1; i >= 0; i--) {
      const { node, parent } = path[i] as PathEntry;
      if (!fresh.has(node) || done.has(node)) continue;
      done.add(node);
      if (node instanceof NandNode) {
        const end = node.inputParent;
        const rightReady = end !== null && !fresh.has(end);
        if (parent === this.root) {
          // A group first in the rule: its right memory first, then the root token meets it.
          if (rightReady) primeFromSibling(node.input, end, ctx);
          node.leftActivate(root);
        } else if (!fresh.has(parent)) primeFromSibling(node, parent, ctx);
        else if (rightReady) primeFromSibling(node.input, end, ctx);
      } else if (parent === this.root) node.leftActivate(root);
      else if (!fresh.has(parent)) primeFromSibling(node, parent, ctx);
    }
  }

  private chain(
    b: Build,
    ces: CE[],
    start: TokenSource,
    startDepth: number,
    scope: Scope,
    display: Display[],
    external: ReadonlySet<string>,
    top: boolean,
  ): { parent: TokenSource; depth: number } {
    let parent = start;
    let depth = startDepth;
    let pendingTests: Expr[] = [];
    for (let i = 0; i < ces.length; i++) {
      const ce = ces[i] as CE;
      if (ce.type === "test" && top && display.length === 0 && canMergeAhead(ces, i)) {
        // A leading test CE is evaluated with the first pattern's join, as CLIPS does.
        pendingTests.push(ce.expr);
        continue;
      }
      switch (ce.type) {
        case "pattern": {
          const tests = pendingTests;
          if (tests.length > 0 && top && display.length === 0) b.leading = [...tests];
          pendingTests = [];
          while (ces[i + 1]?.type === "test" && !refersTo(ces[i + 1] as CE, ce.addressVar)) {
            tests.push((ces[i + 1] as { expr: Expr }).expr);
            i++;
          }
          parent = this.pattern(b, ce, parent, depth, scope, external, tests, null, false);
          display.push("fact");
          depth++;
          break;
        }
        case "test":
          parent = this.test(b, ce.expr, parent, depth, scope);
          display.push("none");
          depth++;
          break;
        case "and":
          ({ parent, depth } = this.chain(b, ce.ces, parent, depth, scope, display, external, top));
          break;
        case "not":
        case "exists":
        case "forall": {
          const negation = negationOf(ce);
          if (negation.kind === "pattern") {
            // CLIPS reads (exists p) as (not (not p)): p sits one group deeper.
            const ext = external;
            const pass = top && b.passes;
            const ex = negation.exists;
            parent = this.pattern(b, negation.ce, parent, depth, scope, ext, [], ex, pass);
          } else {
            parent = this.nand(b, negation, parent, depth, scope, external);
          }
          // CLIPS lists a group of test CEs alone as nothing, not as `*`.
          display.push(onlyTests(ce) ? "none" : "star");
          depth++;
          break;
        }
        case "or":
          throw rulesLoadError(ce.pos, "an (or …) inside not, exists or forall is not supported", {
            construct: b.construct,
            hint: "Rewrite (not (or A B)) as (not A) (not B).",
          });
      }
    }
    return { parent, depth };
  }

  /** A pattern's join (negated: a not/exists join) below `parent`. */
  private pattern(
    b: Build,
    ce: PatternCE,
    parent: TokenSource,
    depth: number,
    scope: Scope,
    external: ReadonlySet<string>,
    tests: Expr[],
    negated: boolean | null,
    mayPass: boolean,
  ): TokenSource {
    b.patterns++;
    const cp = compilePattern(ce, scope, {
      host: this.host,
      rule: b.rule,
      patternNo: b.patterns,
      construct: b.construct,
      tests,
      external,
    });
    const { alpha, stop } = this.alphas.alphaFor(ce, cp);
    const kind = negated === null ? "J" : negated ? "E" : "N";
    const key = `${kind}|${stop.id}|${cp.join.key}`;
    // A rule whose nots may pass tokens on shares an identical node that makes tokens (one a
    // logical rule built first), as CLIPS shares it; a logical rule never shares a passing one.
    const passes = mayPass && !this.byKey.get(parent)?.has(key);
    const node = this.attach(
      parent,
      passes ? `${key}|p` : key,
      () => {
        const made =
          negated === null
            ? new JoinNode(alpha, cp.join)
            : new NegativeNode(alpha, cp.join, negated, passes);
        made.depth = depth + 1;
        if (made instanceof NegativeNode) viewIfIncluded(made, parent);
        return this.alphas.hang(made, stop);
      },
      b,
    );
    if (negated === null) {
      for (const [name, binding] of cp.bindings) scope.set(name, { slot: depth, ...binding });
    }
    return node;
  }

  /** Test CEs that read no variable, evaluated on demand. */
  private constantTests(exprs: readonly Expr[], construct: string): () => boolean {
    const fns = exprs.map((e) => compileExpr(e, { resolve: () => null, rhs: false, construct }));
    return () => {
      const frame = { tok: null, local: null, rhs: null, host: this.host() };
      return fns.every((fn) => fn(frame) !== FALSE);
    };
  }

  /** A `(test …)` CE as a join of its own. */
  private test(b: Build, expr: Expr, parent: TokenSource, depth: number, scope: Scope): TestNode {
    const fn = compileExpr(expr, {
      resolve: (name) => {
        const loc = scope.get(name);
        return loc ? tokenReader(loc) : null;
      },
      rhs: false,
      construct: b.construct,
    });
    const places = [...exprVars(expr)].map((u) => {
      const loc = scope.get(u);
      return loc ? `${u}=${loc.slot}:${loc.key}` : u;
    });
    const key = `T|${JSON.stringify(expr, (k, v) => (k === "pos" ? undefined : v))}|${places.join()}`;
    const host = this.host;
    return this.attach(
      parent,
      key,
      () => {
        const made = new TestNode(
          key,
          (t) => fn({ tok: t, local: null, rhs: null, host: host() }) !== FALSE,
        );
        made.depth = depth + 1;
        return made;
      },
      b,
    );
  }

  /**
   * A not/exists over a group: the group's sub-network hangs below `parent` like the rest of the
   * rule, and a join from the right (CLIPS visits it after the group's own path) takes the
   * group's matches as its right memory.
   */
  private nand(
    b: Build,
    negation: Negation & { kind: "group" },
    parent: TokenSource,
    depth: number,
    scope: Scope,
    external: ReadonlySet<string>,
  ): NandNode {
    const { ces, exists } = negation;
    const inner: Scope = new Map(scope);
    const end = this.chain(b, ces, parent, depth, inner, [], external, false);
    const spec = nandJoin(b.externals.get(negation) ?? [], scope);
    const endId = (end.parent as Shareable).id ?? 0;
    const before = this.fresh.length;
    const node = this.attach(
      parent,
      `G|${exists ? "E" : "N"}|${endId}|${spec.key}`,
      () => {
        const made = new NandNode(spec, exists);
        made.depth = depth + 1;
        return made;
      },
      b,
      true,
    );
    if (this.fresh.length > before) {
      // A new nand join: its right input is primed before its left one.
      node.inputParent = end.parent;
      link(end.parent, node.input, false);
      this.fresh.splice(before, 0, node.input);
    }
    return node;
  }
}

/** Links a child in front of its siblings (CLIPS links a new join first), or second. */
function link(parent: TokenSource, child: LeftInput, second: boolean): void {
  const children = parent.children as LeftInput[];
  if (second && children.length > 0) children.splice(1, 0, child);
  else children.unshift(child);
}

function unlink(parent: TokenSource | null, child: LeftInput): void {
  const at = parent ? parent.children.indexOf(child) : -1;
  if (at >= 0) parent?.children.splice(at, 1);
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

function refersTo(ce: CE, name: string | null): boolean {
  return name !== null && ce.type === "test" && exprVars(ce.expr).has(name);
}

/** True when a not/exists/forall holds test CEs and nothing else. */
function onlyTests(ce: CE): boolean {
  switch (ce.type) {
    case "test":
      return true;
    case "pattern":
      return false;
    case "not":
      return onlyTests(ce.ce);
    case "forall":
      return onlyTests(ce.first) && ce.rest.every(onlyTests);
    default:
      return ce.ces.every(onlyTests);
  }
}

/**
 * Gives a new not/exists node below a passing one a view of its parent's memory when its join
 * compares every value the parent's does (BlockingNode.viewOf): one entry per token fewer.
 */
function viewIfIncluded(node: NegativeNode, parent: TokenSource): void {
  const passer = (parent instanceof NegativeNode || parent instanceof NandNode) && parent.passes;
  node.fedLate = passer;
  const parts = parent instanceof NegativeNode ? parent.spec.parts : null;
  if (!passer || parts === null || !(parent instanceof NegativeNode)) return;
  const hash = hashByParts(parts, node.spec);
  if (hash !== null) node.viewParent(parent, hash);
}

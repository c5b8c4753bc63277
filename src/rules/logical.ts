/**
 * Truth maintenance for the `logical` conditional element (CLIPS 6.30 lgcldpnd.c). A fact a
 * logical rule asserts is supported by the partial match of the rule's logical patterns; when
 * every partial match supporting it is gone, the fact is retracted. A fact asserted without
 * logical support (or already there without it) is unconditional and stays.
 */
import type { Fact } from "./facts.js";
import {
  dependentsOf,
  setDependents,
  type Token,
  type TokenDependents,
  type TokenExt,
} from "./rete/memory.js";

/**
 * The facts one partial match supports, newest first (CLIPS's dependents list), and the rule
 * that asserted each: CLIPS keeps one partial match per rule where Keel shares one token.
 */
class Support implements TokenDependents {
  readonly memory = null;
  extNext: TokenExt | null = null;
  readonly facts: Fact[] = [];
  readonly rules: string[] = [];
  constructor(private readonly tm: TruthMaintenance) {}
  lost(t: Token): void {
    this.tm.lost(t, this.facts, this.rules);
  }
}

export class TruthMaintenance {
  /** Facts with logical support, and the partial matches giving it. */
  private readonly supports = new Map<Fact, Set<Token>>();
  /** Facts that lost their last support, in the order CLIPS retracts them. */
  private pending: Fact[] = [];
  private flushing = false;
  /** The logical partial match of the rule firing now, or null. */
  current: Token | null = null;
  /** The rule firing now (with `current`). */
  currentRule = "";

  constructor(
    /** A rule's place in definition order (an earlier rule's partial match is taken first). */
    private readonly rank: (rule: string) => number = () => 0,
  ) {}

  /** A fact was asserted (`existing`: it was already there) while `current` fires. */
  asserted(fact: Fact, existing: boolean): void {
    const t = this.current;
    if (t === null) {
      // An unconditional assert of a supported fact makes it unconditional (AddLogicalDependencies).
      if (existing) this.supports.delete(fact);
      return;
    }
    if ((existing && !this.supports.has(fact)) || t.dead) return;
    let set = this.supports.get(fact);
    if (!set) {
      set = new Set();
      this.supports.set(fact, set);
    }
    if (set.has(t)) return;
    set.add(t);
    let d = dependentsOf(t) as Support | null;
    if (!d) {
      d = new Support(this);
      setDependents(t, d);
    }
    d.facts.unshift(fact);
    d.rules.unshift(this.currentRule);
  }

  /** A fact was retracted: it needs no support any more. */
  retracted(fact: Fact): void {
    if (this.supports.size !== 0) this.supports.delete(fact);
  }

  lost(t: Token, facts: readonly Fact[], rules: readonly string[]): void {
    for (const i of lossOrder(rules, this.rank)) {
      const f = facts[i] as Fact;
      const set = this.supports.get(f);
      if (!set?.delete(t) || set.size > 0) continue;
      this.supports.delete(f);
      this.pending.unshift(f);
    }
  }

  /** Retracts the facts left without support (ForceLogicalRetractions); not re-entered. */
  flush(retract: (f: Fact) => void): void {
    if (this.flushing || this.pending.length === 0) return;
    this.flushing = true;
    try {
      for (let f = this.pending.shift(); f; f = this.pending.shift()) if (!f.retracted) retract(f);
    } finally {
      this.flushing = false;
    }
  }

  /** The partial matches supporting `fact`, newest first (CLIPS's `dependencies` order). */
  supportOf(fact: Fact): Token[] {
    const set = this.supports.get(fact);
    return set ? [...set].reverse() : [];
  }

  /** Every supported fact with its supporting partial matches, oldest support first. */
  supported(): IterableIterator<[Fact, ReadonlySet<Token>]> {
    return this.supports.entries();
  }

  /** The facts partial match `t` supports, newest first. */
  factsSupportedBy(t: Token): readonly Fact[] {
    return (dependentsOf(t) as Support | null)?.facts ?? [];
  }

  /** The rule that asserted each of {@link factsSupportedBy}'s facts. */
  rulesSupportedBy(t: Token): readonly string[] {
    return (dependentsOf(t) as Support | null)?.rules ?? [];
  }

  /**
   * Sets the support a snapshot recorded (on a fresh instance): each fact's supporting partial
   * matches in the order kept, and each partial match's facts, newest first, with their rules.
   */
  restore(
    supports: readonly [Fact, readonly Token[]][],
    facts: ReadonlyMap<Token, readonly (readonly [Fact, string])[]>,
  ): void {
    for (const [fact, tokens] of supports) this.supports.set(fact, new Set(tokens));
    for (const [t, supported] of facts) {
      const d = new Support(this);
      for (const [f, rule] of supported) {
        d.facts.push(f);
        d.rules.push(rule);
      }
      setDependents(t, d);
    }
  }

  /** Whether a fact has logical support (for explanations and tests). */
  isSupported(fact: Fact): boolean {
    return this.supports.has(fact);
  }
}

/**
 * The order a lost partial match's facts lose their support in: newest first for one rule (as
 * CLIPS walks a partial match's dependents); when several rules share the token, CLIPS had one
 * partial match per rule and took the earliest defined rule's first.
 */
function lossOrder(rules: readonly string[], rank: (rule: string) => number): number[] {
  const order = rules.map((_, i) => i);
  const first = rules[0];
  if (rules.some((r) => r !== first)) {
    const ranks = new Map<string, number>();
    for (const r of rules) if (!ranks.has(r)) ranks.set(r, rank(r));
    order.sort(
      (a, b) => (ranks.get(rules[a] as string) ?? 0) - (ranks.get(rules[b] as string) ?? 0),
    );
  }
  return order;
}

import type { Token, TokenExt } from "./rete/memory.js";
import { goesAfter, type Strategy } from "./strategy.js";

/**
 * A rule instance ready to fire. Kept on its token (rule-entry.ts): in the token's own slot, or in
 * its ext list (`memory` is then the rule's entry).
 */
export interface Activation extends TokenExt {
  memory: object | null;
  readonly rule: RuleInfo;
  readonly token: Token;
  /** Changes only when every-cycle salience evaluation re-places the activation. */
  salience: number;
  /** Creation order: larger is newer. The depth strategy fires the newest first within a salience. */
  timetag: number;
  prev: Activation | null;
  next: Activation | null;
  group: SalienceGroup | null;
  /** Cached by the lex and mea strategies: the matched facts' timetags, most recent first. */
  basis?: number[];
  /** The random strategy's draw. */
  randomId?: number;
}

/** What the agenda and firings need to know about a rule. */
export interface RuleInfo {
  readonly name: string;
  /** The salience; for a dynamic salience, its value when the rule was defined. */
  salience: number;
  /** A dynamic salience: evaluates it (when-activated and every-cycle evaluation). */
  readonly dynamicSalience?: () => number;
  /** Per token position: how the agenda lists it (fact index, `*`, or nothing for test). */
  readonly display: readonly ("fact" | "star" | "none")[];
  /** Which of the rule's `or` disjuncts (network paths) the activation comes from. */
  readonly disjunct: number;
  /**
   * The rule begins with a test CE: CLIPS 6.30 puts an (initial-fact) pattern before it, which
   * the agenda lists as a leading `*`.
   */
  readonly leadingTest?: boolean;
  /** The defmodule of the rule (absent: MAIN). */
  readonly module?: string;
  /** `(declare (auto-focus TRUE))`: an activation puts the rule's module in focus. */
  readonly autoFocus?: boolean;
  /** The rule's complexity (the complexity, simplicity, lex and mea strategies). */
  readonly complexity?: number;
}

interface SalienceGroup {
  readonly salience: number;
  head: Activation | null;
  tail: Activation | null;
  size: number;
}

/**
 * The agenda under the depth strategy: highest salience first; within a salience, the newest
 * activation first. Insert, remove and pop are O(1) plus the number of distinct saliences.
 */
export class Agenda {
  private readonly groups = new Map<number, SalienceGroup>();
  /**
   * The groups of saliences seen so far, highest first. An emptied group stays (an agenda often
   * empties and refills with the same saliences), so add and remove allocate nothing.
   */
  private order: SalienceGroup[] = [];
  private clock = 0;
  size = 0;
  /** The group the last activation went to (cleared with the groups). */
  private last: SalienceGroup | null = null;

  nextTimetag(): number {
    return ++this.clock;
  }

  /** Adds an activation at its place under `strategy` (default depth) within its salience. */
  add(a: Activation, strategy: Strategy = "depth"): void {
    // Activations come in runs of one salience: the last group saves a map lookup.
    let g =
      this.last !== null && this.last.salience === a.salience
        ? this.last
        : this.groups.get(a.salience);
    if (!g) {
      g = { salience: a.salience, head: null, tail: null, size: 0 };
      this.groups.set(a.salience, g);
      this.order.push(g);
      this.order.sort((x, y) => y.salience - x.salience);
    }
    // Depth: newest first; a restored activation may carry an older timetag, so walk to its place.
    let after: Activation | null = null;
    let cur = g.head;
    if (strategy === "depth") {
      while (cur && cur.timetag > a.timetag) {
        after = cur;
        cur = cur.next;
      }
    } else {
      while (cur && goesAfter(cur, a, strategy)) {
        after = cur;
        cur = cur.next;
      }
    }
    a.prev = after;
    a.next = cur;
    if (after) after.next = a;
    else g.head = a;
    if (cur) cur.prev = a;
    else g.tail = a;
    a.group = g;
    g.size++;
    this.size++;
    this.last = g;
  }

  remove(a: Activation): void {
    const g = a.group;
    if (!g) return;
    if (a.prev) a.prev.next = a.next;
    else g.head = a.next;
    if (a.next) a.next.prev = a.prev;
    else g.tail = a.prev;
    a.prev = a.next = null;
    a.group = null;
    g.size--;
    this.size--;
  }

  /** The activation that fires next, or null. */
  peek(): Activation | null {
    const order = this.order;
    for (let i = 0; i < order.length; i++) {
      const head = (order[i] as SalienceGroup).head;
      if (head) return head;
    }
    return null;
  }

  /** Every activation in firing order. */
  list(): Activation[] {
    const out: Activation[] = [];
    for (const g of this.order) for (let a = g.head; a; a = a.next) out.push(a);
    return out;
  }

  clear(): void {
    // An activation removed later (reset renews the root token after clearing) must not count.
    for (const g of this.order) for (let a = g.head; a; a = a.next) a.group = null;
    this.groups.clear();
    this.last = null;
    this.order = [];
    this.size = 0;
  }

  get timetagClock(): number {
    return this.clock;
  }
  set timetagClock(v: number) {
    this.clock = v;
  }
}

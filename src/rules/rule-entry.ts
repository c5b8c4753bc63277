/** A defined rule as the engine keeps it, and where each of its activations is recorded. */
import type { Activation, RuleInfo } from "./agenda.js";
import type { Compiled } from "./evaluate.js";
import { matchesOf, type Token, type TokenExt } from "./rete/memory.js";
import type { BuiltRule } from "./rete/network.js";

/** A defined rule: its compiled disjuncts, right-hand side and live activations. */
export interface RuleEntry {
  readonly name: string;
  readonly info: RuleInfo;
  readonly built: BuiltRule[];
  /** Each disjunct's activation info (its display, whether test CEs lead it). */
  readonly disjuncts?: readonly RuleInfo[];
  readonly hostActions: readonly unknown[] | undefined;
  readonly source: string;
  /** How many leading CEs are logical: facts the rule asserts depend on their match. */
  readonly logical?: number;
}

// A token's activation lives on the token itself (no map traffic per activation): in its own
// slot, or in its ext list when another consumer claimed that slot first (a token a not node
// passed on is also in that node's memory).
export function setAct(entry: RuleEntry, t: Token, a: Activation): void {
  if (t.memOwner === null) t.memOwner = entry;
  if (t.memOwner === entry) {
    t.aux = a;
    return;
  }
  a.memory = entry;
  a.extNext = t.ext;
  t.ext = a;
}

export function getAct(entry: RuleEntry, t: Token): Activation | undefined {
  if (t.memOwner === entry) return (t.aux as Activation | null) ?? undefined;
  for (let e = t.ext; e !== null; e = e.extNext) if (e.memory === entry) return e as Activation;
  return undefined;
}

export function delAct(entry: RuleEntry, t: Token): void {
  if (t.memOwner === entry) {
    t.aux = null;
    return;
  }
  let before: TokenExt | null = null;
  for (let e = t.ext; e !== null; before = e, e = e.extNext) {
    if (e.memory !== entry) continue;
    if (before) before.extNext = e.extNext;
    else t.ext = e.extNext;
    return;
  }
}

/** Takes the activation of `entry` off `t` and returns it (one walk of the token's entries). */
export function takeAct(entry: RuleEntry, t: Token): Activation | undefined {
  if (t.memOwner === entry) {
    const a = t.aux as Activation | null;
    t.aux = null;
    return a ?? undefined;
  }
  let before: TokenExt | null = null;
  for (let e = t.ext; e !== null; before = e, e = e.extNext) {
    if (e.memory !== entry) continue;
    if (before) before.extNext = e.extNext;
    else t.ext = e.extNext;
    return e as Activation;
  }
  return undefined;
}

export function delActOf(entry: RuleEntry | undefined, t: Token): void {
  if (entry) delAct(entry, t);
}

/** RHS closures per compiled disjunct (kept outside the entry so `or` rules share a name). */
export const rhsByBuilt = new WeakMap<BuiltRule, Compiled[]>();

export function activationKey(info: RuleInfo, t: Token): string {
  return snapshotEntryKey(
    info.name,
    info.disjunct,
    matchesOf(t, info.display.length).map((m) => (m ? m.fact.factId : null)),
  );
}

/**
 * The key of a snapshot's agenda entry. The disjunct is part of it: the two sides of an `or`
 * can activate a rule on the same facts, and each must get its own timetag back.
 */
export function snapshotEntryKey(
  rule: string,
  disjunct: number,
  facts: readonly (number | null)[],
): string {
  return `${rule}|${disjunct}|${facts.map((x) => (x === null ? "*" : x)).join(",")}`;
}

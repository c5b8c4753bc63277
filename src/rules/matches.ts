/**
 * `(matches rule [verbose|succinct|terse])` and `(refresh rule)` as CLIPS 6.30 has them
 * (rulecom.c, rulebsc.c): read from the network's memories, laid out as CLIPS's joins
 * (rete/join-view.ts).
 */
import type { Activation } from "./agenda.js";
import { typeError } from "./function-args.js";
import {
  alphaMatches,
  type ClipsJoin,
  ceNumber,
  countPatterns,
  hasOutput,
  type JoinView,
  joinMemory,
  joinView,
  partialMatchText,
} from "./rete/join-view.js";
import type { Token, TokenSource } from "./rete/memory.js";
import { getAct, type RuleEntry } from "./rule-entry.js";
import { FALSE, type Value, VOID } from "./values.js";

/** What the commands read from the engine. */
export interface MatchesHost {
  /** The rule a typed name stands for (`MOD::name`, or a bare name of the current module). */
  rule(name: string): RuleEntry | undefined;
  /** The network's root node and its token. */
  rootNode(): TokenSource;
  rootToken(): Token;
  /** The current module's activations in agenda order (CLIPS 6.30 lists those). */
  activations(): readonly Activation[];
  print(text: string): void;
}

type Output = "verbose" | "succinct" | "terse";

/** The rule a command names, or null after CLIPS's message for an unknown one. */
function namedRule(host: MatchesHost, fn: string, args: readonly Value[]): RuleEntry | null {
  const name = args[0];
  if (typeof name !== "string") {
    throw typeError(fn, 1, "symbol");
  }
  const entry = host.rule(name);
  if (entry) return entry;
  host.print(`[PRNTUTIL1] Unable to find defrule ${name}.\n`);
  return null;
}

function viewsOf(host: MatchesHost, entry: RuleEntry): JoinView[] {
  return entry.built.map((b, i) => joinView(b, host.rootNode(), disjunctLeadingTest(entry, i)));
}

function disjunctLeadingTest(entry: RuleEntry, index: number): boolean {
  return entry.disjuncts?.[index]?.leadingTest ?? false;
}

/**
 * `(matches rule [output])`: each disjunct's alpha matches per pattern and partial matches per
 * join, then the rule's activations; returns CLIPS's counts `(alpha beta activations)`.
 */
export function matchesCommand(host: MatchesHost, args: readonly Value[]): Value {
  const entry = namedRule(host, "matches", args);
  if (!entry) return FALSE;
  let output: Output = "verbose";
  const mode = args[1];
  if (mode !== undefined) {
    if (mode !== "verbose" && mode !== "succinct" && mode !== "terse") {
      host.print(
        "[ARGACCES5] Function matches expected argument #2 to be of type symbol with value verbose, succinct, or terse\n",
      );
      return FALSE;
    }
    output = mode;
  }
  const root = host.rootToken();
  const say = (text: string) => {
    if (output === "verbose") host.print(text);
  };
  const brief = (text: string) => {
    if (output === "succinct") host.print(text);
  };
  let alphaCount = 0;
  let betaCount = 0;
  for (const [d, view] of viewsOf(host, entry).entries()) {
    const terminal = (entry.built[d] as RuleEntry["built"][number]).terminal;
    const alphas = view.joins.filter((j) => j.right === null);
    alphas.forEach((join, i) => {
      say(`Matches for Pattern ${i + 1}\n`);
      let count: number;
      if (join.alpha === null) {
        // A join without a pattern: `*` once it let the partial match before it through.
        // Merged leading tests: held when they let a match through, or when they hold now.
        const next = join.holds ? view.joins[1] : undefined;
        count = (next && hasOutput(next, root)) || hasOutput(join, root) ? 1 : 0;
        say(count ? "*\n" : " None\n");
      } else {
        const list = alphaMatches(join);
        count = list.length;
        for (const am of list) say(`${am.fact.label()}\n`);
        if (count === 0) say(" None\n");
      }
      brief(`Pattern ${i + 1}: ${count}\n`);
      alphaCount += count;
    });
    for (let i = 1; i < view.joins.length; i++) {
      const join = view.joins[i] as ClipsJoin;
      const header = betaHeader(view.joins, i);
      say(`Partial matches for CEs ${header}\n`);
      const tokens = joinMemory(view, i, terminal, root);
      for (const t of tokens) say(`${partialMatchText(join, t)}\n`);
      if (tokens.length === 0) say(" None\n");
      betaCount += tokens.length;
      brief(`CEs ${header}: ${tokens.length}\n`);
    }
  }
  say("Activations\n");
  const mine = host.activations().filter((a) => a.rule.name === entry.name);
  for (const a of mine) say(`${activationText(view0(host, entry, a), a)}\n`);
  if (mine.length === 0) say(" None\n");
  brief(`Activations: ${mine.length}\n`);
  return [alphaCount, betaCount, mine.length];
}

/** The join view of the disjunct an activation belongs to. */
function view0(host: MatchesHost, entry: RuleEntry, a: Activation): ClipsJoin | null {
  const index = a.rule.disjunct ?? 0;
  const built = entry.built[index];
  if (!built) return null;
  return joinView(built, host.rootNode(), disjunctLeadingTest(entry, index)).last;
}

function activationText(last: ClipsJoin | null, a: Activation): string {
  return last ? partialMatchText(last, a.token) : "*";
}

/** CLIPS's name for a join's partial matches: `1 - 3`, `1 (P1) , 2 (P2 - P3)` (BetaHeaderString). */
function betaHeader(joins: readonly ClipsJoin[], index: number): string {
  const marked = new Array<boolean>(joins.length).fill(false);
  const begin = joins.map((j) => countPatterns(j, false));
  const end = joins.map((j) => countPatterns(j, true));
  let nested = false;
  let positions = 0;
  let lastIndex = index;
  for (let j: ClipsJoin | null = joins[index] ?? null; j !== null; j = j.lastLevel) {
    for (let i = lastIndex; i >= 0; i--) {
      if (joins[i] !== j) continue;
      positions++;
      marked[i] = true;
      if (begin[i] !== end[i]) nested = true;
      lastIndex = i - 1;
      break;
    }
  }
  const part = (i: number): string => {
    const ce = String(ceNumber(joins[i] as ClipsJoin));
    if (!nested) return ce;
    return begin[i] === end[i] ? `${ce} (P${begin[i]})` : `${ce} (P${begin[i]} - P${end[i]})`;
  };
  let text = "";
  for (let i = 0; i <= index; i++) {
    if (!marked[i]) continue;
    positions--;
    const start = i;
    if (begin[i] === end[i]) {
      for (let j = i + 1; j <= index; j++) {
        if (!marked[j]) continue;
        if (begin[j] !== end[j]) break;
        positions--;
        i = j;
      }
    }
    text += part(start);
    if (i !== start) text += ` - ${part(i)}`;
    if (positions > 0) text += " , ";
  }
  return text;
}

/**
 * `(refresh rule)`: every complete match of the rule without an activation (one that fired)
 * gets one again, newest match first as CLIPS walks the rule's last memory.
 */
export function refreshCommand(host: MatchesHost, args: readonly Value[]): Value {
  const entry = namedRule(host, "refresh", args);
  if (!entry) return FALSE;
  const root = host.rootToken();
  entry.built.forEach((built, index) => {
    const view = joinView(built, host.rootNode(), disjunctLeadingTest(entry, index));
    // A rule without a node of its own matches once, with the root token.
    const tokens = view.last?.out
      ? joinMemory(view, view.joins.length - 1, built.terminal, root)
      : [root];
    for (const t of tokens) if (!getAct(entry, t)) built.terminal.leftActivate(t);
  });
  return VOID;
}

/**
 * Logical support in a snapshot. A supporting partial match is a token of the Rete, which a
 * restore builds afresh from the same constructs and facts: the snapshot names each one by the
 * rule disjunct whose node made it, that node's place in the disjunct's path, and its facts, and
 * the restore finds the token with the same node and facts in the rebuilt network.
 */
import type { LogicalSnapshot } from "./engine-types.js";
import type { Fact } from "./facts.js";
import type { TruthMaintenance } from "./logical.js";
import type { Token } from "./rete/memory.js";
import { matchesOf } from "./rete/memory.js";
import type { RuleEntry } from "./rule-entry.js";

interface NodePlace {
  rule: string;
  disjunct: number;
  node: number;
}

/** Where each node of a logical rule sits: the first rule, disjunct and path place naming it. */
function nodePlaces(rules: Iterable<[string, RuleEntry]>): Map<object, NodePlace> {
  const places = new Map<object, NodePlace>();
  for (const [rule, entry] of rules) {
    if (!entry.logical) continue;
    entry.built.forEach((built, disjunct) => {
      built.path.forEach(({ node }, index) => {
        if (!places.has(node)) places.set(node, { rule, disjunct, node: index });
      });
    });
  }
  return places;
}

function factsOf(t: Token): (number | null)[] {
  return matchesOf(t, t.depth).map((m) => (m ? m.fact.factId : null));
}

/** The rules that asserted a match's facts, when any is not the rule naming the match. */
function assertedBy(rules: readonly string[], rule: string): { rules?: string[] } {
  return rules.some((r) => r !== rule) ? { rules: [...rules] } : {};
}

/** The support `tms` keeps, as plain JSON; undefined when there is none. */
export function logicalSnapshot(
  tms: TruthMaintenance,
  rules: Iterable<[string, RuleEntry]>,
): LogicalSnapshot | undefined {
  const supported = [...tms.supported()];
  if (supported.length === 0) return undefined;
  const places = nodePlaces(rules);
  const index = new Map<Token, number>();
  const matches: LogicalSnapshot["matches"][number][] = [];
  const facts: [number, number[]][] = [];
  for (const [fact, tokens] of supported) {
    const refs: number[] = [];
    for (const t of tokens) {
      let i = index.get(t);
      if (i === undefined) {
        const place = places.get(t.source);
        if (place === undefined) continue;
        i = matches.length;
        index.set(t, i);
        matches.push({
          rule: place.rule,
          ...(place.disjunct ? { disjunct: place.disjunct } : {}),
          node: place.node,
          facts: factsOf(t),
          supports: tms.factsSupportedBy(t).map((f) => f.factId),
          ...assertedBy(tms.rulesSupportedBy(t), place.rule),
        });
      }
      refs.push(i);
    }
    facts.push([fact.factId, refs]);
  }
  return { matches, facts };
}

/**
 * Gives `tms` the support `s` records, on the tokens of the rebuilt network below `root`. A
 * partial match no longer found (the snapshot came from other constructs) gives no support.
 */
export function restoreLogical(
  tms: TruthMaintenance,
  s: LogicalSnapshot,
  rules: ReadonlyMap<string, RuleEntry>,
  root: Token,
  factById: (id: number) => Fact | undefined,
): void {
  const wanted = new Map<object, Map<string, number[]>>();
  s.matches.forEach((m, i) => {
    const node = rules.get(m.rule)?.built[m.disjunct ?? 0]?.path[m.node]?.node;
    if (node === undefined) return;
    let byFacts = wanted.get(node);
    if (!byFacts) {
      byFacts = new Map();
      wanted.set(node, byFacts);
    }
    const key = m.facts.join(",");
    byFacts.set(key, [...(byFacts.get(key) ?? []), i]);
  });
  const found = new Array<Token | undefined>(s.matches.length);
  const stack: Token[] = [root];
  for (let t = stack.pop(); t !== undefined; t = stack.pop()) {
    for (let c = t.firstChild; c !== null; c = c.nextSibling) stack.push(c);
    const byFacts = wanted.get(t.source);
    if (byFacts === undefined) continue;
    for (const i of byFacts.get(factsOf(t).join(",")) ?? []) found[i] = t;
  }
  const dependents = new Map<Token, [Fact, string][]>();
  s.matches.forEach((m, i) => {
    const t = found[i];
    if (t === undefined) return;
    const supported: [Fact, string][] = [];
    m.supports.forEach((id, at) => {
      const f = factById(id);
      if (f) supported.push([f, m.rules?.[at] ?? m.rule]);
    });
    dependents.set(t, supported);
  });
  const supports: [Fact, Token[]][] = [];
  for (const [id, refs] of s.facts) {
    const fact = factById(id);
    const tokens = refs.map((i) => found[i]).filter((t): t is Token => t !== undefined);
    if (fact && tokens.length > 0) supports.push([fact, tokens]);
  }
  tms.restore(supports, dependents);
}

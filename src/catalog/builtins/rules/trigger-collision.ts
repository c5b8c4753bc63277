import { compareCodePoints } from "../../../core/index.js";
import type { Rule } from "../../extensions.js";
import type { CatalogIssue, CatalogNode, NodeKind, TriggerUse } from "../../model.js";
import { normalizeTrigger } from "../../trigger.js";
import { changedNames } from "./incremental.js";

/** Kinds whose frontmatter `name` advertises a trigger (`/name`); notes and hooks do not. */
const ADVERTISERS: ReadonlySet<NodeKind> = new Set(["command", "skill", "agent"]);

// How a trigger is spelled once separators are set aside: `/build deploy`, `/build-deploy` and
// `/build_deploy` are one spelling; `/Deploy` and `/deploy` are two.
function spelling(trigger: string): string {
  return trigger.replace(/[-_\s]+/g, "-");
}

interface Bucket {
  advertisers: Map<string, string>; // node path → canonical spelling (`/` + name)
  invocations: Map<string, Set<string>>; // written trigger → source paths
}

/** The rule over nodes and trigger uses (links reduced to who invokes which spelling). */
function collisions(nodes: readonly CatalogNode[], uses: readonly TriggerUse[]): CatalogIssue[] {
  const buckets = new Map<string, Bucket>();
  const bucket = (key: string): Bucket => {
    let found = buckets.get(key);
    if (!found) {
      found = { advertisers: new Map(), invocations: new Map() };
      buckets.set(key, found);
    }
    return found;
  };
  for (const node of nodes) {
    if (!ADVERTISERS.has(node.kind)) continue;
    const name = node.frontmatter.name;
    if (typeof name !== "string" || normalizeTrigger(name) === "") continue;
    bucket(`/${normalizeTrigger(name)}`).advertisers.set(node.path, spelling(`/${name}`));
  }
  for (const { normalizedTrigger, source, target } of uses) {
    const invocations = bucket(normalizedTrigger).invocations;
    const sources = invocations.get(target) ?? new Set<string>();
    sources.add(source);
    invocations.set(target, sources);
  }
  const issues: CatalogIssue[] = [];
  for (const [normalizedTrigger, { advertisers, invocations }] of buckets) {
    const advertiserPaths = [...advertisers.keys()].sort(compareCodePoints);
    const invocationTargets = [...invocations.keys()].sort(compareCodePoints);
    const spellings = new Set(invocationTargets.map(spelling));
    const canonical = new Set(advertisers.values());
    const offCanonical =
      advertiserPaths.length === 1
        ? invocationTargets.filter((target) => !canonical.has(spelling(target)))
        : [];
    const reasons: string[] = [];
    if (advertiserPaths.length > 1) {
      reasons.push(`${advertiserPaths.length} nodes advertise it (${advertiserPaths.join(", ")})`);
    }
    if (spellings.size > 1) {
      reasons.push(`it is invoked as ${invocationTargets.join(", ")}`);
    } else if (offCanonical.length > 0) {
      reasons.push(
        `${offCanonical.join(", ")} does not match how ${advertiserPaths[0]} spells it (${[...canonical][0]})`,
      );
    }
    if (reasons.length === 0) continue;
    const nodeIds = new Set(advertiserPaths);
    for (const sources of invocations.values()) for (const source of sources) nodeIds.add(source);
    issues.push({
      ruleId: "trigger-collision",
      severity: "error",
      nodeIds: [...nodeIds].sort(compareCodePoints),
      message: `Trigger "${normalizedTrigger}" is ambiguous: ${reasons.join("; ")}.`,
      data: { normalizedTrigger, invocationTargets, advertiserPaths },
    });
  }
  return issues;
}

/**
 * A trigger claimed ambiguously is an error: two nodes advertising the same normalised name,
 * two different spellings invoking it (`/Deploy` and `/deploy`), or an invocation spelled
 * differently from the one node that advertises it. Separators alone do not count as a different
 * spelling (`/build-deploy` invokes a command named `build deploy`).
 */
export const triggerCollisionRule: Rule = {
  kind: "rule",
  id: "trigger-collision",
  version: "1.0.0",
  description: "Triggers (/cmd, @agent) claimed by more than one node or spelling: error.",
  evaluate({ nodes, links }) {
    const uses: TriggerUse[] = [];
    for (const link of links) {
      const normalizedTrigger = link.trigger?.normalizedTrigger;
      if (normalizedTrigger)
        uses.push({ normalizedTrigger, source: link.source, target: link.target });
    }
    return collisions(nodes, uses);
  },
  // An issue is about one normalised trigger: it changes when a node advertising it (by name)
  // or a link invoking it comes, goes or changes.
  incremental: {
    key: (issue) => String(issue.data?.normalizedTrigger ?? ""),
    async reevaluate(change, view) {
      const keys = new Set<string>();
      for (const link of [...change.removedLinks, ...change.addedLinks]) {
        const normalized = link.trigger?.normalizedTrigger;
        if (normalized) keys.add(normalized);
      }
      for (const name of changedNames(change)) {
        const normalized = normalizeTrigger(name);
        if (normalized !== "") keys.add(`/${normalized}`);
      }
      // Only `/name` buckets have advertisers.
      const named = await view.nodesNamed(
        [...keys].filter((key) => key.startsWith("/")).map((key) => key.slice(1)),
      );
      const nodes = named.filter((node) => ADVERTISERS.has(node.kind));
      const issues = collisions(nodes, await view.triggerUses(keys));
      return { keys, issues };
    },
  },
};

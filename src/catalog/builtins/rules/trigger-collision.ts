import { compareCodePoints } from "../../../core/index.js";
import type { Rule } from "../../extensions.js";
import type { CatalogIssue, NodeKind } from "../../model.js";
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
    for (const link of links) {
      const normalized = link.trigger?.normalizedTrigger;
      if (!normalized) continue;
      const invocations = bucket(normalized).invocations;
      const sources = invocations.get(link.target) ?? new Set<string>();
      sources.add(link.source);
      invocations.set(link.target, sources);
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
        reasons.push(
          `${advertiserPaths.length} nodes advertise it (${advertiserPaths.join(", ")})`,
        );
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
      for (const name of changedNames(change, (path) => view.node(path))) {
        const normalized = normalizeTrigger(name);
        if (normalized !== "") keys.add(`/${normalized}`);
      }
      const nodes = view.nodes.filter((node) => {
        if (!ADVERTISERS.has(node.kind)) return false;
        const name = node.frontmatter.name;
        return typeof name === "string" && keys.has(`/${normalizeTrigger(name)}`);
      });
      const links = await view.linksWithTrigger(keys);
      const issues = triggerCollisionRule.evaluate({
        nodes,
        links,
        strict: view.strict,
        frontmatter: view.frontmatter,
      });
      return { keys, issues };
    },
  },
};

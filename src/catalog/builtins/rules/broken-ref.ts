import type { Rule } from "../../extensions.js";
import type { CatalogIssue, CatalogLink } from "../../model.js";
import { linkResolver } from "../../resolve.js";
import { normalizeTrigger } from "../../trigger.js";
import { changedNames, linkKey } from "./incremental.js";

// How a stored link's trigger can be written for a node `name` to resolve it (see linkResolver:
// one leading `/` or `@` is set aside, then the rest is trimmed).
function triggersNaming(name: string): string[] {
  const normalized = normalizeTrigger(name);
  return [normalized, `/${normalized}`, `@${normalized}`, `/ ${normalized}`, `@ ${normalized}`];
}

/**
 * A link whose target is no node is a warning. A trigger link (`/deploy`, `@architect`) resolves
 * to a node whose frontmatter `name` normalises to the trigger without its sigil; any link
 * resolves to a node whose path is its target verbatim.
 */
export const brokenRefRule: Rule = {
  kind: "rule",
  id: "broken-ref",
  version: "1.0.0",
  description: "Links whose target resolves to no node (by path, or a trigger by name): warn.",
  evaluate({ nodes, links }) {
    const resolve = linkResolver(nodes);
    const issues: CatalogIssue[] = [];
    for (const link of links) {
      if (resolve(link) !== null) continue;
      const normalized = link.trigger?.normalizedTrigger;
      issues.push({
        ruleId: "broken-ref",
        severity: "warn",
        nodeIds: [link.source],
        message: `${link.source} ${link.kind} ${link.target}, which is not a node of the graph.`,
        data: { target: link.target, kind: link.kind, trigger: normalized ?? null },
      });
    }
    return issues;
  },
  // An issue is about one link. It can change when the link comes or goes, or when its target
  // starts or stops resolving: a node added or removed at its path, or a name it triggers.
  incremental: {
    key: (issue) =>
      linkKey({
        source: issue.nodeIds[0] ?? "",
        target: String(issue.data?.target ?? ""),
        kind: issue.data?.kind as CatalogLink["kind"],
        trigger:
          typeof issue.data?.trigger === "string"
            ? { originalTrigger: "", normalizedTrigger: issue.data.trigger }
            : null,
      }),
    async reevaluate(change, view) {
      const triggers = changedNames(change).flatMap(triggersNaming);
      const candidates = new Map<string, CatalogLink>();
      const keys = new Set<string>();
      for (const link of change.removedLinks) keys.add(linkKey(link));
      const found = [
        change.addedLinks,
        await view.linksTo(change.nodes),
        await view.linksWithTrigger(triggers),
      ];
      for (const list of found) {
        for (const link of list) {
          const key = linkKey(link);
          keys.add(key);
          candidates.set(key, link);
        }
      }
      // The nodes that can resolve a candidate: at its target's path, or named as its trigger.
      const links = [...candidates.values()];
      const nodes = [
        ...(await view.nodesAt(links.map((link) => link.target))),
        ...(await view.nodesNamed(
          links.flatMap((link) => {
            const normalized = link.trigger?.normalizedTrigger;
            return normalized ? [normalized.replace(/^[/@]/, "").trim()] : [];
          }),
        )),
      ];
      const issues = brokenRefRule.evaluate({
        nodes,
        links,
        strict: view.strict,
        frontmatter: view.frontmatter,
      });
      return { keys, issues };
    },
  },
};

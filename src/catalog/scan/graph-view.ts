import type { Store } from "../../store/index.js";
import type { FrontmatterDiagnostic, GraphView } from "../extensions.js";
import type { CatalogLink, CatalogNode, TriggerUse } from "../model.js";
import { type LinkLookup, loadLinksWhere, loadTriggerUses } from "../store/link-lookup.js";
import { compareLinks } from "./order.js";

/**
 * The graph after a `--changed` scan, for incremental rules: every node in memory; the links of
 * the recomputed sources in memory; every other link read from the stored scan by index.
 */
export function graphView(
  store: Store,
  nodes: readonly CatalogNode[],
  byPath: ReadonlyMap<string, CatalogNode>,
  /** The new links of each recomputed source (every stored link of these sources is gone). */
  recomputed: ReadonlyMap<string, readonly CatalogLink[]>,
  strict: boolean,
  frontmatter: ReadonlyMap<string, FrontmatterDiagnostic>,
): GraphView {
  const lookup = async (
    column: LinkLookup,
    values: Iterable<string>,
    matches: (link: CatalogLink, wanted: ReadonlySet<string>) => boolean,
  ): Promise<CatalogLink[]> => {
    const wanted = new Set(values);
    if (wanted.size === 0) return [];
    const links: CatalogLink[] = [];
    for (const { link } of await loadLinksWhere(store, column, wanted))
      if (!recomputed.has(link.source)) links.push(link);
    for (const list of recomputed.values())
      for (const link of list) if (matches(link, wanted)) links.push(link);
    return links.sort(compareLinks);
  };
  return {
    nodes,
    node: (path) => byPath.get(path),
    strict,
    frontmatter,
    async linksFrom(sources) {
      const stored: string[] = [];
      const links: CatalogLink[] = [];
      for (const source of new Set(sources)) {
        const list = recomputed.get(source);
        if (list) links.push(...list);
        else stored.push(source);
      }
      for (const { link } of await loadLinksWhere(store, "source_path", stored)) links.push(link);
      return links.sort(compareLinks);
    },
    linksTo: (targets) => lookup("target_path", targets, (link, wanted) => wanted.has(link.target)),
    linksWithTrigger: (triggers) =>
      lookup("normalized_trigger", triggers, (link, wanted) =>
        wanted.has(link.trigger?.normalizedTrigger ?? "\u0000"),
      ),
    async triggerUses(triggers) {
      const wanted = new Set(triggers);
      if (wanted.size === 0) return [];
      const uses: TriggerUse[] = [];
      for (const use of await loadTriggerUses(store, wanted))
        if (!recomputed.has(use.source)) uses.push(use);
      for (const list of recomputed.values()) {
        for (const link of list) {
          const normalizedTrigger = link.trigger?.normalizedTrigger;
          if (normalizedTrigger !== undefined && wanted.has(normalizedTrigger))
            uses.push({ normalizedTrigger, source: link.source, target: link.target });
        }
      }
      return uses;
    },
  };
}

import { compareCodePoints } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import type { FrontmatterDiagnostic, GraphView } from "../extensions.js";
import type { CatalogLink, CatalogNode, TriggerUse } from "../model.js";
import { type LinkLookup, loadLinksWhere, loadTriggerUses } from "../store/link-lookup.js";
import { loadNodes, loadNodesAt, loadNodeTitles } from "../store/load.js";
import { normalizeTrigger } from "../trigger.js";
import { compareLinks } from "./order.js";

const byPath = (a: CatalogNode, b: CatalogNode) => compareCodePoints(a.path, b.path);

/**
 * The graph after a `--changed` scan, for incremental rules, read on demand: `known` holds the
 * nodes the scan has in memory (every changed one as it is now, `undefined` for one removed);
 * any other node is read from the stored scan by path, and only when a rule asks. Links of the
 * recomputed sources are in memory; every other link is read by index.
 */
export function graphView(
  store: Store,
  known: ReadonlyMap<string, CatalogNode | undefined>,
  /** The new links of each recomputed source (every stored link of these sources is gone). */
  recomputed: ReadonlyMap<string, readonly CatalogLink[]>,
  strict: boolean,
  frontmatter: ReadonlyMap<string, FrontmatterDiagnostic>,
): GraphView {
  const read = new Map<string, CatalogNode | undefined>(known);
  const nodesAt = async (paths: Iterable<string>): Promise<CatalogNode[]> => {
    const wanted = new Set(paths);
    const missing = [...wanted].filter((path) => !read.has(path));
    for (const node of await loadNodesAt(store, missing)) read.set(node.path, node);
    const nodes: CatalogNode[] = [];
    for (const path of wanted) {
      const node = read.get(path);
      if (node) nodes.push(node);
      else read.set(path, undefined);
    }
    return nodes.sort(byPath);
  };
  // Normalised title → stored paths, built on the first name lookup. A node's title is its
  // `name` when it has one, so the candidates of a name are few; each is then read and checked.
  let titles: Map<string, string[]> | undefined;
  const candidatesNamed = async (names: ReadonlySet<string>): Promise<Set<string>> => {
    if (!titles) {
      titles = new Map();
      for (const [path, title] of await loadNodeTitles(store)) {
        if (title === null || known.has(path)) continue;
        const normalized = normalizeTrigger(title);
        const list = titles.get(normalized);
        if (list) list.push(path);
        else titles.set(normalized, [path]);
      }
    }
    const paths = new Set<string>();
    for (const name of names) for (const path of titles.get(name) ?? []) paths.add(path);
    for (const [path, node] of known) if (node) paths.add(path);
    return paths;
  };
  let everything: Promise<readonly CatalogNode[]> | undefined;
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
    nodesAt,
    async nodesNamed(names) {
      const wanted = new Set(names);
      if (wanted.size === 0) return [];
      const nodes = await nodesAt(await candidatesNamed(wanted));
      return nodes.filter((node) => {
        const name = node.frontmatter.name;
        return typeof name === "string" && name !== "" && wanted.has(normalizeTrigger(name));
      });
    },
    allNodes() {
      everything ??= loadNodes(store).then((stored) => {
        const nodes = stored.filter((node) => !known.has(node.path));
        for (const node of known.values()) if (node) nodes.push(node);
        return nodes.sort(byPath);
      });
      return everything;
    },
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

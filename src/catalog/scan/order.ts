import type { CatalogLink } from "../model.js";

const byUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The graph's one link order: source, target, kind, trigger, then position. A full scan and a
 * `--changed` scan (whose unchanged rows keep their place in the database) list links alike, and
 * rules (whose `linkIndices` point into this list) see the same list either way.
 */
export function compareLinks(a: CatalogLink, b: CatalogLink): number {
  return (
    byUnits(a.source, b.source) ||
    byUnits(a.target, b.target) ||
    byUnits(a.kind, b.kind) ||
    byUnits(a.trigger?.normalizedTrigger ?? "", b.trigger?.normalizedTrigger ?? "") ||
    (a.location?.offset ?? -1) - (b.location?.offset ?? -1) ||
    byUnits(a.trigger?.originalTrigger ?? "", b.trigger?.originalTrigger ?? "")
  );
}

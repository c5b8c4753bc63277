import { compareCodePoints, KeelError } from "../core/index.js";
import type { CatalogIssue, CatalogLink, CatalogNode, ScanResult } from "./model.js";

/** What changed between a saved scan and a fresh one (`keel scan --compare-with`). */
export interface ScanDelta {
  nodes: { added: string[]; removed: string[]; changed: string[] };
  links: { added: CatalogLink[]; removed: CatalogLink[] };
  issues: { added: CatalogIssue[]; removed: CatalogIssue[] };
}

const linkKey = (l: CatalogLink) =>
  JSON.stringify([l.source, l.target, l.kind, l.trigger?.normalizedTrigger ?? null]);
const issueKey = (i: CatalogIssue) =>
  JSON.stringify([i.ruleId, i.severity, [...i.nodeIds].sort(compareCodePoints), i.message]);

function diff<T>(before: readonly T[], after: readonly T[], key: (item: T) => string) {
  const a = new Map(before.map((item) => [key(item), item]));
  const b = new Map(after.map((item) => [key(item), item]));
  return {
    added: [...b].filter(([k]) => !a.has(k)).map(([, v]) => v),
    removed: [...a].filter(([k]) => !b.has(k)).map(([, v]) => v),
  };
}

/**
 * Compares two scans as sets: nodes by path (changed when a hash moved), links by source,
 * target, kind and trigger, issues by rule, severity, nodes and message.
 */
export function diffScans(before: ScanResult, after: ScanResult): ScanDelta {
  const old = new Map<string, CatalogNode>(before.nodes.map((n) => [n.path, n]));
  const now = new Map<string, CatalogNode>(after.nodes.map((n) => [n.path, n]));
  const sorted = (paths: Iterable<string>) => [...paths].sort(compareCodePoints);
  return {
    nodes: {
      added: sorted([...now.keys()].filter((p) => !old.has(p))),
      removed: sorted([...old.keys()].filter((p) => !now.has(p))),
      changed: sorted(
        [...now.values()]
          .filter((n) => {
            const o = old.get(n.path);
            return (
              o !== undefined &&
              (o.bodyHash !== n.bodyHash ||
                o.frontmatterHash !== n.frontmatterHash ||
                o.kind !== n.kind)
            );
          })
          .map((n) => n.path),
      ),
    },
    links: diff(before.links, after.links, linkKey),
    issues: diff(before.issues, after.issues, issueKey),
  };
}

/** Parses a saved `keel scan --json` dump, refusing anything that is not one. */
export function parseScanDump(text: string, file: string): ScanResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new KeelError(
      "CATALOG_DUMP_INVALID",
      `${file} is not JSON: ${(error as Error).message}.`,
      {
        hint: "Save a dump with `keel scan --json > scan.json`.",
      },
    );
  }
  const dump = raw as Partial<ScanResult> | null;
  const problems: string[] = [];
  if (!dump || typeof dump !== "object") problems.push("/ is not an object");
  else {
    if (dump.schemaVersion !== 1) problems.push("/schemaVersion is not 1");
    for (const key of ["nodes", "links", "issues"] as const) {
      if (!Array.isArray(dump[key])) problems.push(`/${key} is not an array`);
    }
  }
  if (problems.length > 0) {
    throw new KeelError(
      "CATALOG_DUMP_INVALID",
      `${file} is not a scan result: ${problems.join("; ")}.`,
      {
        details: { file, problems },
        hint: "Save a dump with `keel scan --json > scan.json`.",
      },
    );
  }
  return dump as ScanResult;
}

import { compareCodePoints, KeelError } from "../core/index.js";
import { type CatalogNode, NODE_KINDS, type ScanResult } from "./model.js";

/**
 * `keel export <query>`: space-separated terms, all of which a node must meet.
 * - `kind:<kind>[,<kind>…]` — one of the kinds;
 * - `path:<glob>` — its path matches (`*` within a folder, `**` across folders);
 * - `issue:any|error|warn|info` — it has an issue (of that severity);
 * - `adapter:<id>`;
 * - any other word — found (case-insensitively) in its path, title or description.
 * `*` or an empty query selects every node.
 */
export interface NodeQuery {
  readonly text: string;
  matches(node: CatalogNode): boolean;
}

function globToRegExp(glob: string): RegExp {
  let pattern = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === "*" && glob[i + 1] === "*") {
      pattern += ".*";
      i++;
      if (glob[i + 1] === "/") i++;
    } else if (ch === "*") pattern += "[^/]*";
    else if (ch === "?") pattern += "[^/]";
    else pattern += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${pattern}$`);
}

/** Parses a query against a scan (issue terms need its issues); every bad term is reported. */
export function parseNodeQuery(text: string, scan: ScanResult): NodeQuery {
  const terms = text.trim() === "" || text.trim() === "*" ? [] : text.trim().split(/\s+/);
  const tests: ((node: CatalogNode) => boolean)[] = [];
  const problems: string[] = [];
  const severities = new Map<string, Set<string>>();
  for (const issue of scan.issues) {
    for (const id of issue.nodeIds) {
      const set = severities.get(id) ?? new Set<string>();
      set.add(issue.severity);
      severities.set(id, set);
    }
  }
  for (const term of terms) {
    const colon = term.indexOf(":");
    const key = colon > 0 ? term.slice(0, colon) : "";
    const value = colon > 0 ? term.slice(colon + 1) : term;
    switch (key) {
      case "kind": {
        const kinds = value.split(",");
        const bad = kinds.filter((k) => !(NODE_KINDS as readonly string[]).includes(k));
        if (bad.length > 0)
          problems.push(`kind "${bad.join(",")}" is not one of ${NODE_KINDS.join(", ")}`);
        tests.push((node) => kinds.includes(node.kind));
        break;
      }
      case "path": {
        const regex = globToRegExp(value);
        tests.push((node) => regex.test(node.path));
        break;
      }
      case "issue": {
        if (!["any", "error", "warn", "info"].includes(value)) {
          problems.push(`issue:${value} must be issue:any, issue:error, issue:warn or issue:info`);
        }
        tests.push((node) => {
          const found = severities.get(node.path);
          return found !== undefined && (value === "any" || found.has(value));
        });
        break;
      }
      case "adapter":
        tests.push((node) => node.adapter === value);
        break;
      case "": {
        const needle = value.toLowerCase();
        tests.push((node) =>
          [node.path, node.title ?? "", node.description ?? ""].some((field) =>
            field.toLowerCase().includes(needle),
          ),
        );
        break;
      }
      default:
        problems.push(`"${key}:" is not a query key (kind:, path:, issue:, adapter:)`);
    }
  }
  if (problems.length > 0) {
    throw new KeelError(
      "CATALOG_QUERY_INVALID",
      `The query "${text}" is invalid: ${problems.join("; ")}.`,
      {
        details: { query: text, problems },
        hint: 'Example: keel export "kind:skill path:.claude/** issue:any" --format md',
      },
    );
  }
  return { text, matches: (node) => tests.every((test) => test(node)) };
}

/** The part of a scan a query selects: its nodes, the links leaving them, their issues. */
export function selectScan(
  scan: ScanResult,
  query: NodeQuery,
): Pick<ScanResult, "nodes" | "links" | "issues"> {
  const nodes = scan.nodes.filter((node) => query.matches(node));
  const paths = new Set(nodes.map((n) => n.path));
  return {
    nodes,
    links: scan.links.filter((link) => paths.has(link.source)),
    issues: scan.issues.filter((issue) => issue.nodeIds.some((id) => paths.has(id))),
  };
}

/**
 * The orders `keel list --sort-by` and `GET /api/nodes?sort_by=` offer, by name: path and kind
 * ascending, sizes and link counts largest first.
 *
 * @example
 * nodes.sort(NODE_SORTS["links-in"]);
 */
export const NODE_SORTS: Record<string, (a: CatalogNode, b: CatalogNode) => number> = {
  path: (a, b) => compareCodePoints(a.path, b.path),
  kind: (a, b) => compareCodePoints(a.kind, b.kind) || compareCodePoints(a.path, b.path),
  tokens: (a, b) => (b.tokens?.total ?? 0) - (a.tokens?.total ?? 0),
  bytes: (a, b) => b.bytes.total - a.bytes.total,
  "links-in": (a, b) => b.linksInCount - a.linksInCount,
  "links-out": (a, b) => b.linksOutCount - a.linksOutCount,
};

import { z } from "zod";
import {
  builtInRegistry,
  diagramOf,
  LINK_KINDS,
  linkResolver,
  loadScanHead,
  NODE_KINDS,
  NODE_SORTS,
  nodeDetail,
  notScanned,
  parseNodeQuery,
  requireIssues,
  requireScan,
  selectScan,
} from "../../catalog/index.js";
import type { ServerContext } from "../context.js";
import type { RouteTable } from "../route.js";

const Json = z.record(z.string(), z.unknown());
const Limit = z.coerce.number().int().min(1).max(10_000).default(1000);
const NodeKind = z.enum(NODE_KINDS as [string, ...string[]]);
const LinkKind = z.enum(LINK_KINDS as [string, ...string[]]);
const Severity = z.enum(["error", "warn", "info"]);
/** A node path as the scan stores it: relative, no NUL; it is only ever compared, never opened. */
const NodePath = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[^\0]*$/, "no NUL characters");

/**
 * The catalog, read-only (seed 004's `/api/scan`, `/api/nodes`, `/api/links`, `/api/issues`,
 * `/api/graph`): the scan stored by the last `keel scan`, read as `keel list`, `show`, `check`,
 * `graph` and `export` read it. The server never scans; a scan made by the CLI shows up here
 * (and as `scan.changed` on the event channel).
 */
export function catalogRoutes(table: RouteTable, ctx: ServerContext): void {
  const registry = builtInRegistry();

  table.add(
    {
      method: "get",
      path: "/api/scan",
      capability: "read",
      summary:
        "The last scan: its head (when, scope, roots, stats) and, with full=true, every node, link and issue (`keel scan --json`).",
      tag: "catalog",
      query: z.looseObject({ full: z.enum(["true", "false"]).default("false") }),
      response: Json,
    },
    async (c, { query }) => {
      if (query.full === "true") return c.json({ ok: true, scan: await requireScan(ctx.store) });
      const head = await loadScanHead(ctx.store);
      if (!head) throw notScanned();
      const { result, stats, issues } = head;
      return c.json({
        ok: true,
        scan: { ...result, stats, issuesCount: issues.length },
      });
    },
  );

  table.add(
    {
      method: "get",
      path: "/api/nodes",
      capability: "read",
      summary: "Nodes of the last scan (`keel list`), or those a query selects (`keel export`).",
      tag: "catalog",
      query: z.looseObject({
        kind: NodeKind.optional(),
        issue: z.enum(["true", "false"]).optional(),
        q: z.string().max(2000).optional(),
        sort_by: z.enum(Object.keys(NODE_SORTS) as [string, ...string[]]).default("path"),
        limit: Limit,
      }),
      response: z.object({ ok: z.literal(true), nodes: z.array(Json) }),
    },
    async (c, { query }) => {
      const scan = await requireScan(ctx.store);
      const selected = query.q ? parseNodeQuery(query.q, scan) : null;
      const withIssues = new Set(scan.issues.flatMap((i) => i.nodeIds));
      const sort = NODE_SORTS[query.sort_by] ?? NODE_SORTS.path;
      const nodes = scan.nodes
        .filter((n) => query.kind === undefined || n.kind === query.kind)
        .filter((n) => query.issue !== "true" || withIssues.has(n.path))
        .filter((n) => selected === null || selected.matches(n))
        .sort(sort)
        .slice(0, query.limit);
      return c.json({ ok: true as const, nodes: nodes as unknown as Record<string, unknown>[] });
    },
  );

  table.add(
    {
      method: "get",
      path: "/api/nodes/show",
      capability: "read",
      summary:
        "One node (`keel show`): weight, frontmatter, links in and out, issues, findings, summary.",
      tag: "catalog",
      query: z.looseObject({ path: NodePath }),
      response: Json,
    },
    async (c, { query }) => {
      const scan = await requireScan(ctx.store);
      return c.json({ ok: true, ...(await nodeDetail(ctx.store, scan, query.path)) });
    },
  );

  table.add(
    {
      method: "get",
      path: "/api/links",
      capability: "read",
      summary: "Links of the last scan, filtered by source, target or kind.",
      tag: "catalog",
      query: z.looseObject({
        source: NodePath.optional(),
        target: NodePath.optional(),
        kind: LinkKind.optional(),
        limit: Limit,
      }),
      response: z.object({ ok: z.literal(true), links: z.array(Json) }),
    },
    async (c, { query }) => {
      const scan = await requireScan(ctx.store);
      const links = scan.links
        .filter((l) => query.source === undefined || l.source === query.source)
        .filter((l) => query.target === undefined || l.target === query.target)
        .filter((l) => query.kind === undefined || l.kind === query.kind)
        .slice(0, query.limit);
      return c.json({ ok: true as const, links: links as unknown as Record<string, unknown>[] });
    },
  );

  table.add(
    {
      method: "get",
      path: "/api/issues",
      capability: "read",
      summary: "Issues of the last scan (`keel check`), filtered by severity, rule or node.",
      tag: "catalog",
      query: z.looseObject({
        severity: Severity.optional(),
        rule: z.string().max(200).optional(),
        node: NodePath.optional(),
      }),
      response: z.object({ ok: z.literal(true), issues: z.array(Json) }),
    },
    async (c, { query }) => {
      const issues = (await requireIssues(ctx.store))
        .filter((i) => query.severity === undefined || i.severity === query.severity)
        .filter((i) => query.rule === undefined || i.ruleId === query.rule)
        .filter((i) => query.node === undefined || i.nodeIds.includes(query.node));
      return c.json({ ok: true as const, issues: issues as unknown as Record<string, unknown>[] });
    },
  );

  table.add(
    {
      method: "get",
      path: "/api/graph",
      capability: "read",
      summary:
        "The catalog graph (`keel graph` / `keel export`): json gives nodes, links (each with the node it resolves to, resolvedTarget) and issues; ascii, mermaid and dot give the renderer's text.",
      tag: "catalog",
      query: z.looseObject({
        format: z.string().max(40).default("json"),
        q: z.string().max(2000).optional(),
      }),
      response: Json,
    },
    async (c, { query }) => {
      const scan = await requireScan(ctx.store);
      const graph = query.q ? selectScan(scan, parseNodeQuery(query.q, scan)) : scan;
      if (query.format === "json") {
        // Each link says which node it lands on (null: none), as broken-ref decides it.
        const resolve = linkResolver(scan.nodes);
        return c.json({
          ok: true,
          nodes: graph.nodes,
          links: graph.links.map((link) => ({ ...link, resolvedTarget: resolve(link) })),
          issues: graph.issues,
        });
      }
      const text = diagramOf(registry, query.format, graph);
      return c.text(text, 200, { "Content-Type": "text/plain; charset=utf-8" });
    },
  );
}

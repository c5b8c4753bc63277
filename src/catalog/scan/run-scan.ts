import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { compareCodePoints, KeelError, VERSION } from "../../core/index.js";
import type { FrontmatterDiagnostic, Rule } from "../extensions.js";
import { validateFrontmatter } from "../frontmatter/validate.js";
import { DEFAULT_MAX_FILE_BYTES, type FileStamp, stampOf } from "../fs/read-file.js";
import {
  CATALOG_SPEC_VERSION,
  type CatalogIssue,
  type CatalogLink,
  type CatalogNode,
  type ScanResult,
} from "../model.js";
import type { ExtensionRegistry } from "../registry.js";
import { countLinks, graphLinks } from "./links.js";
import { type Listing, listForNode, listScope, nodeNotFound, walkStarts } from "./listing.js";
import { PhaseClock, type ScanTimings } from "./phases.js";
import type { PriorScan } from "./prior.js";
import { collect, detectNode, diagnoseFrontmatter, readNode, unreadable } from "./read-node.js";
import { type TokenPool, tokenPool } from "./token-pool.js";

/** The fingerprint of what a scan runs; a stored scan made under another one is not reused. */
export function scanSettingsHash(
  registry: ExtensionRegistry,
  tokenize: boolean,
  maxFileBytes: number,
): string {
  return `${registry.fingerprint()}|tokenize=${tokenize}|max=${maxFileBytes}`;
}

/** Which files a scan reads. */
export type ScanMode =
  | { readonly kind: "full" }
  /** Only files whose modification time or size moved since the prior scan (then by hash). */
  | { readonly kind: "changed" }
  /** One node re-read; every other node kept from the prior scan. */
  | { readonly kind: "node"; readonly path: string };

export interface ScanOptions {
  /** Absolute path of the scope root; node paths are relative to it. */
  readonly root: string;
  readonly registry: ExtensionRegistry;
  readonly scope?: "project" | "global";
  readonly mode?: ScanMode;
  /** Count tokens (default true); false leaves `tokens` absent. */
  readonly tokenize?: boolean;
  /** Frontmatter findings are errors (default false). */
  readonly strict?: boolean;
  readonly followSymlinks?: boolean;
  /** Extra gitignore-syntax patterns (config `ignore`). */
  readonly ignore?: readonly string[];
  /** Folders to walk, relative to the root (config `roots`; default the whole root). */
  readonly roots?: readonly string[];
  readonly maxFileBytes?: number;
  /** The stored scan; required by the `changed` and `node` modes (without one they read everything). */
  readonly prior?: PriorScan | null;
  readonly now?: () => number;
  /** The walk's result when the caller already listed the scope (it is not walked again). */
  readonly listing?: Listing;
  /** Stamps the caller already took (`--changed` probes them before deciding to scan). */
  readonly probed?: ReadonlyMap<string, FileStamp | null>;
  /** Called as files are processed: (done, total). */
  readonly onProgress?: (done: number, total: number) => void;
  /** Receives notes about extensions that misbehaved (dropped links or issues). */
  readonly onDiagnostic?: (message: string) => void;
}

/** A finished scan: the result, the file stamps to store, and where the time went. */
export interface ScanOutcome {
  readonly result: ScanResult;
  readonly stamps: Map<string, FileStamp>;
  readonly timings: ScanTimings;
  /** Nodes taken from the prior scan without running detectors. */
  readonly reused: number;
  /** The settings fingerprint the result was made under. */
  readonly settingsHash: string;
}

/**
 * Walks the scope, classifies files through the adapters, reads and parses the claimed ones,
 * runs the detectors per node and the rules over the whole graph. Touches no database: the caller
 * persists the result (see `persistScan`). A file that cannot be read is an `unreadable-file`
 * issue, never a failed scan.
 *
 * @example
 * const registry = builtInRegistry();
 * const { result } = await runScan({ root: process.cwd(), registry });
 * console.log(result.stats.nodesCount);
 */
export async function runScan(options: ScanOptions): Promise<ScanOutcome> {
  const now = options.now ?? Date.now;
  const scannedAt = now();
  const clock = new PhaseClock();
  const registry = options.registry;
  const tokenize = options.tokenize !== false;
  const strict = options.strict === true;
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const mode = options.mode ?? { kind: "full" };
  const settingsHash = scanSettingsHash(registry, tokenize, maxFileBytes);
  const prior = options.prior && options.prior.settingsHash === settingsHash ? options.prior : null;
  const adapters = registry.adapters();
  const detectors = registry.detectors();
  const diagnostic = options.onDiagnostic ?? (() => {});

  if (!isDirectory(options.root)) {
    throw new KeelError(
      "CATALOG_ROOT_INVALID",
      `The scope root ${options.root} does not exist or is not a folder.`,
      {
        hint: "Run the command in the project folder, or pass -g for the global scope.",
        details: { root: options.root },
      },
    );
  }
  const listing = clock.measure(
    "walk",
    () =>
      options.listing ??
      (mode.kind === "node"
        ? listForNode(
            options.root,
            registry,
            options.prior ? options.prior.nodes.keys() : [],
            mode.path,
            diagnostic,
          )
        : listScope(options.root, registry, {
            ignore: options.ignore,
            roots: options.roots,
            followSymlinks: options.followSymlinks,
            onDiagnostic: diagnostic,
          })),
  );

  // A full scan (or one with nothing to reuse) counts every file: then tokenizing runs on a
  // worker thread beside the rest of the scan; a few re-read files are counted inline.
  const toCount = prior && mode.kind !== "full" ? 0 : listing.files.length;
  const pool: TokenPool | null = tokenize
    ? await clock.measureAsync("tokenize", () => tokenPool(toCount))
    : null;
  const counted: Promise<void>[] = [];
  const nodes: CatalogNode[] = [];
  const links: CatalogLink[] = [];
  const frontmatter = new Map<string, FrontmatterDiagnostic>();
  const stamps = new Map<string, FileStamp>();
  const kernelIssues: CatalogIssue[] = [];
  const external = new Map<string, number>();
  let skipped = listing.skipped;
  let reused = 0;
  const bodyDetectorIds = new Set(
    detectors.filter((d) => d.scope !== "frontmatter").map((d) => d.id),
  );
  const frontmatterDetectors = detectors.filter((d) => d.scope === "frontmatter");
  const priorLinksBySource = indexLinks(prior?.links ?? []);
  const priorMalformed = indexMalformed(prior?.issues ?? []);
  const priorUnreadable = indexUnreadable(prior?.issues ?? []);
  // The built-in rule stored each invalid block's problems: a reused node's block is unchanged,
  // so its problems are read back instead of validated again (and the schemas never compiled).
  const priorInvalid = registry.rules().some((r) => r.id === "frontmatter-invalid")
    ? indexInvalid(prior?.issues ?? [])
    : null;

  const reuse = (node: CatalogNode, stamp: FileStamp | null) => {
    const copy: CatalogNode = { ...node, bytes: { ...node.bytes } };
    if (node.tokens) copy.tokens = { ...node.tokens };
    nodes.push(copy);
    if (stamp) stamps.set(node.path, stamp);
    external.set(node.path, node.externalRefsCount);
    for (const link of priorLinksBySource.get(node.path) ?? []) {
      // The stored link as it is when only body detectors found it (the common case).
      if (link.sources.every((id) => bodyDetectorIds.has(id))) {
        links.push(link);
        continue;
      }
      const sources = link.sources.filter((id) => bodyDetectorIds.has(id));
      if (sources.length > 0) links.push({ ...link, sources });
    }
    clock.measure("detect", () => {
      for (const detector of frontmatterDetectors) {
        collect(
          detector,
          detector.detect({ node: copy, body: "", frontmatter: copy.frontmatter }),
          copy,
          links,
          external,
          diagnostic,
        );
      }
    });
    const malformed = priorMalformed.get(node.path);
    if (malformed) frontmatter.set(node.path, { malformed });
    else if (priorInvalid) {
      const invalid = priorInvalid.get(node.path);
      if (invalid) frontmatter.set(node.path, { invalid });
    } else if (node.bytes.frontmatter > 0) {
      const invalid = clock.measure("parse", () =>
        validateFrontmatter(node.kind, node.frontmatter),
      );
      if (invalid.length > 0) frontmatter.set(node.path, { invalid });
    }
    reused += 1;
  };

  let done = 0;
  for (const file of listing.files) {
    done += 1;
    if (options.onProgress && done % 250 === 0) options.onProgress(done, listing.files.length);
    const { kind, adapter: adapterId } = file;
    const priorNode = prior?.nodes.get(file.path);
    if (priorNode && mode.kind === "node" && file.path !== mode.path) {
      reuse(priorNode, prior?.stamps.get(file.path) ?? null);
      continue;
    }
    if (prior && mode.kind === "changed") {
      const stamp = options.probed?.has(file.path)
        ? (options.probed.get(file.path) ?? null)
        : clock.measure("walk", () => stampOf(file.absolutePath));
      const priorStamp = prior.stamps.get(file.path);
      if (
        stamp &&
        priorStamp &&
        stamp.modifiedAt === priorStamp.modifiedAt &&
        stamp.size === priorStamp.size
      ) {
        if (priorNode && priorNode.kind === kind && priorNode.adapter === adapterId) {
          reuse(priorNode, stamp);
          continue;
        }
        // A file that was not text last time and has not moved still is not.
        const unreadableIssue = priorNode ? undefined : priorUnreadable.get(file.path);
        if (unreadableIssue) {
          skipped += 1;
          kernelIssues.push(unreadableIssue);
          stamps.set(file.path, stamp);
          continue;
        }
      }
    }
    const read = clock.measure("parse", () => readNode(file, maxFileBytes, scannedAt));
    if (!read.ok) {
      skipped += 1;
      kernelIssues.push(read.issue);
      if (read.stamp) stamps.set(file.path, read.stamp);
      continue;
    }
    const { node, split, stamp } = read;
    if (
      priorNode &&
      mode.kind !== "full" &&
      priorNode.bodyHash === node.bodyHash &&
      priorNode.frontmatterHash === node.frontmatterHash &&
      priorNode.kind === kind &&
      priorNode.adapter === adapterId
    ) {
      reuse(priorNode, stamp);
      continue;
    }
    stamps.set(file.path, stamp);
    clock.measure("parse", () => {
      const found = diagnoseFrontmatter(node, split, read.text);
      if (found) frontmatter.set(file.path, found);
    });
    if (pool) {
      const counting = clock.measure("tokenize", () =>
        pool.count(split.frontmatterRaw, split.body),
      );
      counted.push(
        counting.then(([fm, body]) => {
          node.tokens = { frontmatter: fm, body, total: fm + body };
        }),
      );
    }
    nodes.push(node);
    external.set(node.path, 0);
    clock.measure("detect", () => detectNode(detectors, node, split, links, external, diagnostic));
  }
  for (const problem of listing.problems) {
    kernelIssues.push(unreadable(problem.path, problem.reason, problem.message));
  }
  if (
    mode.kind === "node" &&
    existsSync(join(options.root, mode.path)) &&
    !nodes.some((n) => n.path === mode.path) &&
    !kernelIssues.some((i) => i.nodeIds[0] === mode.path)
  ) {
    throw nodeNotFound(mode.path, options.root);
  }
  if (mode.kind === "node" && prior) {
    // Files that could not be read last time stay reported until a full scan looks again.
    for (const issue of prior.issues) {
      if (issue.ruleId === "unreadable-file" && issue.nodeIds[0] !== mode.path)
        kernelIssues.push(issue);
    }
  }

  if (pool) {
    await clock.measureAsync("tokenize", async () => {
      await pool.close();
      await Promise.all(counted);
    });
  }
  nodes.sort((a, b) => compareCodePoints(a.path, b.path));
  const graph = graphLinks(links);
  countLinks(nodes, graph);
  for (const node of nodes) node.externalRefsCount = external.get(node.path) ?? 0;

  const issues = clock.measure("rules", () =>
    runRules(registry.rules(), { nodes, links: graph, strict, frontmatter }, diagnostic),
  );
  issues.push(...kernelIssues);

  const result: ScanResult = {
    schemaVersion: 1,
    scannedAt,
    scannedBy: { name: "keel", version: VERSION, specVersion: CATALOG_SPEC_VERSION },
    scope: options.scope ?? "project",
    roots: walkStarts(options.roots).map((start) => (start === "" ? "." : start)),
    adapters: adapters.map((a) => a.id),
    nodes,
    links: graph,
    issues,
    stats: {
      filesWalked: listing.walked,
      filesSkipped: skipped,
      nodesCount: nodes.length,
      linksCount: graph.length,
      issuesCount: issues.length,
      durationMs: Math.max(0, Math.round(now() - scannedAt)),
    },
  };
  return { result, stamps, timings: clock.timings, reused, settingsHash };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function runRules(
  rules: readonly Rule[],
  context: Parameters<Rule["evaluate"]>[0],
  diagnostic: (message: string) => void,
): CatalogIssue[] {
  const issues: CatalogIssue[] = [];
  for (const rule of rules) issues.push(...checkedIssues(rule, rule.evaluate(context), diagnostic));
  return issues;
}

/**
 * A rule's issues as stored: malformed ones dropped (with a note), the rule's id filled in, and
 * an incremental rule's issues in key order (so `--changed` can splice them; see IncrementalRule).
 */
export function checkedIssues(
  rule: Rule,
  emitted: readonly CatalogIssue[],
  diagnostic: (message: string) => void,
): CatalogIssue[] {
  const issues: CatalogIssue[] = [];
  for (const issue of emitted) {
    if (!["error", "warn", "info"].includes(issue.severity) || issue.nodeIds.length === 0) {
      diagnostic(
        `rule ${rule.id} emitted an issue without a valid severity or node ids ("${issue.message}"); dropped`,
      );
      continue;
    }
    issues.push({ ...issue, ruleId: issue.ruleId || rule.id });
  }
  const incremental = rule.incremental;
  if (!incremental) return issues;
  const keyed = issues.map((issue) => ({ issue, key: incremental.key(issue) }));
  keyed.sort((a, b) => compareCodePoints(a.key, b.key));
  return keyed.map(({ issue }) => issue);
}

function indexLinks(links: readonly CatalogLink[]): Map<string, CatalogLink[]> {
  const bySource = new Map<string, CatalogLink[]>();
  for (const link of links) {
    const list = bySource.get(link.source);
    if (list) list.push(link);
    else bySource.set(link.source, [link]);
  }
  return bySource;
}

function indexMalformed(
  issues: readonly CatalogIssue[],
): Map<string, { hint: string; message: string }> {
  const byPath = new Map<string, { hint: string; message: string }>();
  for (const issue of issues) {
    if (issue.ruleId !== "frontmatter-malformed") continue;
    const path = issue.nodeIds[0];
    const hint = issue.data?.hint;
    if (path !== undefined && typeof hint === "string") byPath.set(path, { hint, message: "" });
  }
  return byPath;
}

function indexUnreadable(issues: readonly CatalogIssue[]): Map<string, CatalogIssue> {
  const byPath = new Map<string, CatalogIssue>();
  for (const issue of issues) {
    const path = issue.nodeIds[0];
    if (issue.ruleId === "unreadable-file" && path !== undefined) byPath.set(path, issue);
  }
  return byPath;
}

function indexInvalid(
  issues: readonly CatalogIssue[],
): Map<string, readonly { path: string; message: string }[]> {
  const byPath = new Map<string, readonly { path: string; message: string }[]>();
  for (const issue of issues) {
    if (issue.ruleId !== "frontmatter-invalid") continue;
    const path = issue.nodeIds[0];
    const errors = issue.data?.errors;
    if (path !== undefined && Array.isArray(errors))
      byPath.set(path, errors as { path: string; message: string }[]);
  }
  return byPath;
}

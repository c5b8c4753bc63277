/**
 * The catalog's wire shapes (seed 004's spec package: node, link, issue and scan-result
 * schemas). Field names are the spec's camelCase JSON, so `keel scan --json` prints them as is.
 */

/** What a node is, as its adapter classified it. */
export type NodeKind = "skill" | "agent" | "command" | "hook" | "note";
export const NODE_KINDS: readonly NodeKind[] = ["skill", "agent", "command", "hook", "note"];

/** The nature of a link. */
export type LinkKind = "invokes" | "references" | "mentions" | "supersedes";
export const LINK_KINDS: readonly LinkKind[] = ["invokes", "references", "mentions", "supersedes"];

export type Confidence = "high" | "medium" | "low";
export type Severity = "error" | "warn" | "info";
export type Stability = "experimental" | "stable" | "deprecated";

/** A size split three ways: the frontmatter block, the body, and their sum. */
export interface TripleSplit {
  frontmatter: number;
  body: number;
  total: number;
}

/** One markdown file of the graph, identified by its path from the scope root. */
export interface CatalogNode {
  path: string;
  kind: NodeKind;
  adapter: string;
  title: string | null;
  description: string | null;
  stability: Stability | null;
  version: string | null;
  author: string | null;
  frontmatter: Record<string, unknown>;
  bodyHash: string;
  frontmatterHash: string;
  bytes: TripleSplit;
  /** Absent when the scan ran with `scan.tokenize: false`. */
  tokens?: TripleSplit;
  linksOutCount: number;
  linksInCount: number;
  externalRefsCount: number;
}

/** A textual trigger (`/deploy`, `@reviewer`) and its normalised form. */
export interface LinkTrigger {
  originalTrigger: string;
  normalizedTrigger: string;
}

export interface LinkLocation {
  line: number;
  column?: number;
  offset?: number;
}

/** A directed relation found by one or more detectors. `target` may name a missing node. */
export interface CatalogLink {
  source: string;
  target: string;
  kind: LinkKind;
  confidence: Confidence;
  sources: string[];
  trigger?: LinkTrigger | null;
  location?: LinkLocation | null;
  raw?: string | null;
}

/** A deterministic finding of a rule. */
export interface CatalogIssue {
  ruleId: string;
  severity: Severity;
  nodeIds: string[];
  linkIndices?: number[];
  message: string;
  detail?: string | null;
  fix?: { summary?: string; autofixable?: boolean } | null;
  data?: Record<string, unknown>;
}

export interface ScanStats {
  filesWalked: number;
  filesSkipped: number;
  nodesCount: number;
  linksCount: number;
  issuesCount: number;
  durationMs: number;
}

/** `keel scan --json` (scan-result.schema.json). */
export interface ScanResult {
  schemaVersion: 1;
  scannedAt: number;
  scannedBy?: { name: string; version: string; specVersion: string } | null;
  scope: "project" | "global";
  roots: string[];
  adapters: string[];
  nodes: CatalogNode[];
  links: CatalogLink[];
  issues: CatalogIssue[];
  stats: ScanStats;
}

/** The skill-map spec version the catalog implements. */
export const CATALOG_SPEC_VERSION = "0.1.0";

/** One stored link reduced to what a trigger's claim needs: who invokes which spelling. */
export interface TriggerUse {
  readonly normalizedTrigger: string;
  readonly source: string;
  readonly target: string;
}

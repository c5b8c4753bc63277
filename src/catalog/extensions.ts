import type {
  CatalogIssue,
  CatalogLink,
  CatalogNode,
  Confidence,
  LinkKind,
  NodeKind,
  TriggerUse,
} from "./model.js";

/** What every extension declares: who it is and where it came from. */
export interface ExtensionBase {
  /** Kebab-case id, unique within its kind (`claude`, `slash`, `broken-ref`). */
  readonly id: string;
  readonly version: string;
  readonly description: string;
  /** The plugin that supplied it; absent for the built-ins. */
  readonly pluginId?: string;
  /**
   * The plugin's config (`plugins.<id>.config`), set on the registered extension at load time
   * (`{}` when none is given); a method reads it as `this.config`. Absent for the built-ins.
   */
  readonly config?: Readonly<Record<string, unknown>>;
  /**
   * A JSON Schema (draft 2020-12) the plugin's config must meet. Checked when the plugin loads:
   * a config that breaks it makes the plugin `load-error`, naming every problem.
   */
  readonly configSchema?: Readonly<Record<string, unknown>>;
}

/**
 * Recognises a platform: decides which walked files are nodes and of which kind.
 *
 * @example
 * const obsidian: Adapter = {
 *   kind: "adapter", id: "obsidian", version: "1.0.0", description: "Obsidian vault notes",
 *   classify: (path) => (path.startsWith("vault/") && path.endsWith(".md") ? "note" : null),
 * };
 */
export interface Adapter extends ExtensionBase {
  readonly kind: "adapter";
  /**
   * The node kind of `path` (POSIX, relative to the scope root), or null when the file is not
   * this adapter's. Only files some adapter claims are read.
   */
  classify(path: string): NodeKind | null;
}

/** What a detector sees of one node. */
export interface DetectContext {
  readonly node: Readonly<CatalogNode>;
  /** The body; empty for a detector whose scope is `frontmatter`. */
  readonly body: string;
  /** The parsed frontmatter; empty for a detector whose scope is `body`. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
}

/**
 * Extracts links from one node. A link whose target carries a URL scheme (`https:`) is counted
 * into the node's `externalRefsCount` and never enters the graph.
 *
 * @example
 * const wiki: Detector = {
 *   kind: "detector", id: "wikilink", version: "1.0.0", description: "[[page]] links",
 *   scope: "body", emitsLinkKinds: ["references"], defaultConfidence: "high",
 *   detect: ({ node, body }) => [...body.matchAll(/\[\[([^\]]+)\]\]/g)].map((m) => ({
 *     source: node.path, target: `${m[1]}.md`, kind: "references", confidence: "high", sources: ["wikilink"],
 *   })),
 * };
 */
export interface Detector extends ExtensionBase {
  readonly kind: "detector";
  readonly scope: "body" | "frontmatter" | "both";
  /** A link of any other kind is dropped (and reported on stderr). */
  readonly emitsLinkKinds: readonly LinkKind[];
  readonly defaultConfidence: Confidence;
  /**
   * For a detector that reads the frontmatter: the keys (at any depth of the block) from which
   * it may draw a link whose source is another node (the built-in `frontmatter` detector draws
   * `metadata.supersededBy`'s edge from the newer node: `["supersededBy"]`). `keel scan --changed` then looks for such links
   * only in nodes whose stored frontmatter holds one of these keys, instead of running the
   * detector over every node again. `[]`: it draws links only from the node it reads. Absent:
   * any node may draw them (correct, slower).
   */
  readonly foreignSourceKeys?: readonly string[];
  detect(context: DetectContext): CatalogLink[];
}

/** Parse diagnostics of a node's frontmatter, for the frontmatter rules. */
export interface FrontmatterDiagnostic {
  /** The block is missing or unusable: `byte-order-mark`, `paste-with-indent`, `missing-close`, `yaml-syntax`, `not-a-mapping`. */
  readonly malformed?: { hint: string; message: string };
  /** JSON Schema problems of a parsed block (JSON Pointer paths). */
  readonly invalid?: readonly { path: string; message: string }[];
}

/** What a rule sees: the whole graph. */
export interface RuleContext {
  readonly nodes: readonly CatalogNode[];
  readonly links: readonly CatalogLink[];
  /** `--strict` / `scan.strict`: frontmatter findings become errors. */
  readonly strict: boolean;
  /** Frontmatter diagnostics by node path (only nodes that have some). */
  readonly frontmatter: ReadonlyMap<string, FrontmatterDiagnostic>;
}

/**
 * Evaluates the graph and reports issues.
 *
 * @example
 * const noDescription: Rule = {
 *   kind: "rule", id: "no-description", version: "1.0.0", description: "nodes without a description",
 *   evaluate: ({ nodes }) => nodes.filter((n) => !n.description).map((n) => ({
 *     ruleId: "no-description", severity: "info", nodeIds: [n.path], message: `${n.path} has no description`,
 *   })),
 * };
 */
export interface Rule extends ExtensionBase {
  readonly kind: "rule";
  evaluate(context: RuleContext): CatalogIssue[];
  /**
   * What the rule's issues depend on, so `keel scan --changed` re-evaluates only what an edit
   * touches. Without it the rule sees the whole graph on every scan (correct, slower).
   */
  readonly incremental?: IncrementalRule;
}

/** What changed in the graph since the stored scan (`keel scan --changed`). */
export interface GraphChange {
  /** Nodes added, removed, or re-read with new content. */
  readonly nodes: ReadonlySet<string>;
  /** A changed node as the stored scan had it (absent for an added node). */
  before(path: string): CatalogNode | undefined;
  /** A changed node as it is now (absent for a removed node). */
  after(path: string): CatalogNode | undefined;
  /** Links no longer in the graph, and links new to it. */
  readonly removedLinks: readonly CatalogLink[];
  readonly addedLinks: readonly CatalogLink[];
}

/**
 * The graph after the change, read on demand: nodes and links come from the stored scan through
 * its indexes (overlaid with the change), so a rule pays for what it asks, not for the graph.
 */
export interface GraphView {
  /** The nodes at these paths (those that exist), in path order. */
  nodesAt(paths: Iterable<string>): Promise<CatalogNode[]>;
  /** The nodes whose frontmatter `name` normalises (normalizeTrigger) to one of these, in path order. */
  nodesNamed(names: Iterable<string>): Promise<CatalogNode[]>;
  /** Every node, in path order: for a rule that needs them all (it reads the whole node table). */
  allNodes(): Promise<readonly CatalogNode[]>;
  linksFrom(sources: Iterable<string>): Promise<CatalogLink[]>;
  linksTo(targets: Iterable<string>): Promise<CatalogLink[]>;
  /** Links whose `trigger.normalizedTrigger` is one of these. */
  linksWithTrigger(triggers: Iterable<string>): Promise<CatalogLink[]>;
  /** Who invokes each of these triggers, and how they spell it: the links without their detail. */
  triggerUses(triggers: Iterable<string>): Promise<TriggerUse[]>;
  readonly strict: boolean;
  /** Frontmatter diagnostics of the changed nodes. */
  readonly frontmatter: ReadonlyMap<string, FrontmatterDiagnostic>;
}

/**
 * A rule's incremental form. Each issue is about one key (a node path, a link, a trigger); the
 * kernel orders a rule's issues by key (code points), on full and incremental scans alike, so
 * the issues of untouched keys are kept in place and the new ones spliced in.
 *
 * @example
 * // A per-node rule: an issue depends only on its node.
 * incremental: {
 *   key: (issue) => issue.nodeIds[0] ?? "",
 *   async reevaluate(change, view) {
 *     const nodes = [...change.nodes].map((p) => change.after(p)).filter((n) => n !== undefined);
 *     const { strict, frontmatter } = view;
 *     return { keys: change.nodes, issues: rule.evaluate({ nodes, links: [], strict, frontmatter }) };
 *   },
 * }
 */
export interface IncrementalRule {
  /** The key an issue is about. */
  key(issue: CatalogIssue): string;
  /** The keys whose issues may differ after `change`, and the issues of exactly those keys. */
  reevaluate(
    change: GraphChange,
    view: GraphView,
  ): Promise<{ keys: ReadonlySet<string>; issues: CatalogIssue[] }>;
}

/** The graph a renderer draws. */
export interface RenderGraph {
  readonly nodes: readonly CatalogNode[];
  readonly links: readonly CatalogLink[];
  readonly issues: readonly CatalogIssue[];
}

/**
 * Serialises the graph in one format (`keel graph --format <format>`).
 *
 * @example
 * const count: Renderer = {
 *   kind: "renderer", id: "count", version: "1.0.0", description: "node count", format: "count",
 *   render: ({ nodes }) => `${nodes.length}\n`,
 * };
 */
export interface Renderer extends ExtensionBase {
  readonly kind: "renderer";
  readonly format: string;
  render(graph: RenderGraph): string;
}

export type Extension = Adapter | Detector | Rule | Renderer;
export type ExtensionKind = Extension["kind"];

/**
 * The skill catalog (seed 004's scan zone): adapters classify files into nodes, detectors find
 * links, rules report issues, renderers draw the graph; `scanScope` stores a scan in `scan_*`.
 */

// Plugin discovery is the store's (one for every module); re-exported for catalog users.
export {
  type DiscoveredPlugin,
  discoverPlugins,
  manifestProblems,
  PLUGIN_FOLDERS,
  PluginManifest,
  type PluginStatus,
  pluginFolders,
} from "../store/index.js";
export { builtInRegistry } from "./builtin-registry.js";
export { BUILT_IN_EXTENSIONS } from "./builtins/index.js";
export { CATALOG_CONFIG_FILES, CatalogConfig, readCatalogConfig } from "./config.js";
export { diffScans, parseScanDump, type ScanDelta } from "./delta.js";
export type {
  Adapter,
  DetectContext,
  Detector,
  Extension,
  ExtensionBase,
  ExtensionKind,
  FrontmatterDiagnostic,
  Renderer,
  RenderGraph,
  Rule,
  RuleContext,
} from "./extensions.js";
export { type Finding, listFindings } from "./findings.js";
export { frontmatterSchema } from "./frontmatter/schemas.js";
export { type SplitFile, splitFrontmatter } from "./frontmatter/split.js";
export { type FrontmatterProblem, validateFrontmatter } from "./frontmatter/validate.js";
export { DEFAULT_IGNORES, IGNORE_FILES } from "./fs/ignore-filter.js";
export { DEFAULT_MAX_FILE_BYTES } from "./fs/read-file.js";
export { renderMarkdown } from "./markdown.js";
export * from "./model.js";
export { type NodeDetail, nodeDetail } from "./node-detail.js";
export { findOrphans, type Orphan, reconcileOrphan } from "./orphans.js";
export { loadPlugins, type PluginLoadContext } from "./plugins/load.js";
export {
  type ScopeRegistry,
  type ScopeRegistryOptions,
  scopeRegistry,
} from "./plugins/scope-registry.js";
export { extensionShapeProblem } from "./plugins/shape.js";
export { NODE_SORTS, type NodeQuery, parseNodeQuery, selectScan } from "./query.js";
export { type DisabledKinds, ExtensionRegistry } from "./registry.js";
export { diagramOf } from "./render.js";
export { linkResolver } from "./resolve.js";
export type { ScanTimings } from "./scan/phases.js";
export type { PriorScan } from "./scan/prior.js";
export {
  runScan,
  type ScanMode,
  type ScanOptions,
  type ScanOutcome,
  scanSettingsHash,
} from "./scan/run-scan.js";
export { type ScanScopeOptions, type ScopeScan, scanScope } from "./scan-scope.js";
export { loadIssues, loadPriorScan, loadScan, loadScanHead, type ScanHead } from "./store/load.js";
export { persistScan } from "./store/persist.js";
export { notScanned, requireIssues, requireScan } from "./store/require.js";
export { normalizeTrigger } from "./trigger.js";

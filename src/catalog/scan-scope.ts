import { VERSION } from "../core/index.js";
import type { Store } from "../store/index.js";
import type { CatalogConfig } from "./config.js";
import { DEFAULT_MAX_FILE_BYTES } from "./fs/read-file.js";
import {
  CATALOG_SPEC_VERSION,
  type CatalogIssue,
  type ScanResult,
  type ScanStats,
} from "./model.js";
import type { ExtensionRegistry } from "./registry.js";
import { changedScan } from "./scan/changed-scan.js";
import { listScope, walkStarts } from "./scan/listing.js";
import { PhaseClock, type ScanTimings } from "./scan/phases.js";
import { nothingChanged, stampListing } from "./scan/probe.js";
import { runScan, type ScanMode, scanSettingsHash } from "./scan/run-scan.js";
import { loadPriorScan, loadScan, loadScanHead, type ScanHead, touchScan } from "./store/load.js";
import { persistScan } from "./store/persist.js";

export interface ScanScopeOptions {
  readonly root: string;
  readonly registry: ExtensionRegistry;
  readonly config?: CatalogConfig;
  readonly mode?: ScanMode;
  readonly scope?: "project" | "global";
  /** `--strict`; otherwise the config's `scan.strict`. */
  readonly strict?: boolean;
  /** Build the result without writing it (`--compare-with`, dry runs). */
  readonly write?: boolean;
  readonly now?: () => number;
  readonly onProgress?: (done: number, total: number) => void;
  readonly onDiagnostic?: (message: string) => void;
}

/** A scan of a scope, stored (unless `write: false`). */
export interface ScopeScan {
  /** True when `--changed` found nothing to re-read: the stored scan stands, unrewritten. */
  readonly unchanged: boolean;
  /**
   * True when `--changed` read, detected and evaluated only what changed (every rule has an
   * incremental form); false when it scanned the whole graph.
   */
  readonly incremental: boolean;
  readonly stats: ScanStats;
  readonly issues: readonly CatalogIssue[];
  readonly timings: ScanTimings;
  /** Nodes taken from the prior scan without being read. */
  readonly reused: number;
  /**
   * The whole result: in memory after a scan that read something; read back from the database
   * after one that found nothing changed (so call it while the store is open).
   */
  result(): Promise<ScanResult>;
}

/**
 * Scans a scope and stores the result in one transaction. `--changed` first lists the scope and
 * compares file stamps with the stored ones: when nothing moved it only records the scan's time;
 * otherwise it reads the changed files, reuses the rest, and writes only the rows that differ.
 *
 * @example
 * const store = await openStore();
 * const scan = await scanScope(store, { root: process.cwd(), registry: builtInRegistry() });
 * console.log(scan.stats.nodesCount, (await scan.result()).nodes[0]?.path);
 */
export async function scanScope(store: Store, options: ScanScopeOptions): Promise<ScopeScan> {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const mode = options.mode ?? { kind: "full" };
  const config = options.config ?? {};
  const write = options.write !== false;
  const tokenize = config.scan?.tokenize !== false;
  const clock = new PhaseClock();
  let listing: ReturnType<typeof listScope> | undefined;
  let probed: Awaited<ReturnType<typeof stampListing>> | undefined;
  let head: ScanHead | null = null;
  if (mode.kind === "changed") {
    // The walk first; then the files are statted on the thread pool while the stored head loads.
    listing = clock.measure("walk", () =>
      listScope(options.root, options.registry, {
        ignore: config.ignore,
        roots: config.roots,
        followSymlinks: config.scan?.followSymlinks,
        onDiagnostic: options.onDiagnostic,
      }),
    );
    const stamping = stampListing(listing);
    head = await clock.measureAsync("load", () => loadScanHead(store));
    probed = await clock.measureAsync("walk", () => stamping);
  } else if (mode.kind === "node") {
    head = await clock.measureAsync("load", () => loadScanHead(store));
  }
  if (mode.kind === "changed" && head && listing && probed) {
    const claimed = listing;
    const settings = scanSettingsHash(options.registry, tokenize, DEFAULT_MAX_FILE_BYTES);
    if (head.settingsHash === settings && nothingChanged(claimed, probed, head)) {
      const durationMs = Math.max(0, Math.round(now() - startedAt));
      const stats = { ...head.stats, filesWalked: claimed.walked, durationMs };
      if (write) {
        const start = performance.now();
        await touchScan(store, head, startedAt, stats);
        clock.timings.write += performance.now() - start;
      }
      return {
        unchanged: true,
        incremental: true,
        stats,
        issues: head.issues,
        timings: clock.timings,
        reused: claimed.files.length,
        result: async () => {
          const stored = (await loadScan(store)) as ScanResult;
          return write ? stored : { ...stored, scannedAt: startedAt, stats };
        },
      };
    }
    if (write && head.settingsHash === settings) {
      // Only what changed is read, detected, evaluated and written (null: it cannot be done so).
      const scan = await changedScan(store, {
        registry: options.registry,
        head,
        listing: claimed,
        probed,
        facts: {
          schemaVersion: 1,
          scannedAt: startedAt,
          scannedBy: { name: "keel", version: VERSION, specVersion: CATALOG_SPEC_VERSION },
          scope: options.scope ?? "project",
          roots: walkStarts(config.roots).map((start) => (start === "" ? "." : start)),
          adapters: options.registry.adapters().map((a) => a.id),
        },
        settingsHash: settings,
        tokenize,
        strict: options.strict ?? config.scan?.strict === true,
        maxFileBytes: DEFAULT_MAX_FILE_BYTES,
        clock,
        now,
        diagnostic: options.onDiagnostic ?? (() => {}),
      });
      if (scan) {
        return {
          unchanged: false,
          incremental: true,
          stats: scan.stats,
          issues: scan.issues,
          timings: clock.timings,
          reused: scan.reused,
          result: async () => (await loadScan(store)) as ScanResult,
        };
      }
    }
  }
  const prior = head ? await clock.measureAsync("load", () => loadPriorScan(store, head)) : null;
  const outcome = await runScan({
    root: options.root,
    registry: options.registry,
    scope: options.scope,
    mode,
    prior,
    listing,
    probed,
    now: options.now,
    tokenize: config.scan?.tokenize,
    strict: options.strict ?? config.scan?.strict,
    followSymlinks: config.scan?.followSymlinks,
    ignore: config.ignore,
    roots: config.roots,
    onProgress: options.onProgress,
    onDiagnostic: options.onDiagnostic,
  });
  for (const phase of Object.keys(clock.timings) as (keyof ScanTimings)[])
    outcome.timings[phase] += clock.timings[phase];
  if (write) {
    const start = performance.now();
    await persistScan(store, outcome.result, outcome.stamps, outcome.settingsHash, prior);
    outcome.timings.write += performance.now() - start;
  }
  return {
    unchanged: false,
    incremental: false,
    stats: outcome.result.stats,
    issues: outcome.result.issues,
    timings: outcome.timings,
    reused: outcome.reused,
    result: async () => outcome.result,
  };
}

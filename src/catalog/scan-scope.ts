import type { Store } from "../store/index.js";
import type { CatalogConfig } from "./config.js";
import type { ExtensionRegistry } from "./registry.js";
import { runScan, type ScanMode, type ScanOutcome } from "./scan/run-scan.js";
import { loadPriorScan } from "./store/load.js";
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
  readonly onProgress?: (done: number, total: number) => void;
  readonly onDiagnostic?: (message: string) => void;
}

/**
 * Scans a scope and stores the result: the prior scan is loaded for `--changed` / `-n`, the scan
 * runs, and `scan_*` is replaced in one transaction (unless `write: false`).
 *
 * @example
 * const store = await openStore();
 * const { result } = await scanScope(store, { root: process.cwd(), registry: builtInRegistry() });
 */
export async function scanScope(store: Store, options: ScanScopeOptions): Promise<ScanOutcome> {
  const mode = options.mode ?? { kind: "full" };
  const config = options.config ?? {};
  const prior = mode.kind === "full" ? null : await loadPriorScan(store);
  const outcome = await runScan({
    root: options.root,
    registry: options.registry,
    scope: options.scope,
    mode,
    prior,
    tokenize: config.scan?.tokenize,
    strict: options.strict ?? config.scan?.strict,
    followSymlinks: config.scan?.followSymlinks,
    ignore: config.ignore,
    onProgress: options.onProgress,
    onDiagnostic: options.onDiagnostic,
  });
  if (options.write !== false) {
    const start = performance.now();
    await persistScan(store, outcome.result, outcome.stamps, outcome.settingsHash);
    outcome.timings.write += performance.now() - start;
  }
  return outcome;
}

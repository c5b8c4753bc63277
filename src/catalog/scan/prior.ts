import type { FileStamp } from "../fs/read-file.js";
import type { CatalogIssue, CatalogLink, CatalogNode } from "../model.js";

/** The last scan, as stored: what `--changed` and `-n` start from. */
export interface PriorScan {
  readonly nodes: ReadonlyMap<string, CatalogNode>;
  /** The file stamp each node was read at (absent for rows written without one). */
  readonly stamps: ReadonlyMap<string, FileStamp>;
  readonly links: readonly CatalogLink[];
  readonly issues: readonly CatalogIssue[];
  /** When the prior scan started (Unix ms). */
  readonly scannedAt: number;
  /** What the scan ran (extensions and settings); a different one makes every node stale. */
  readonly settingsHash: string | null;
  /** The `scan_links` row id of each link (same order); lets a scan write only what changed. */
  readonly linkIds?: readonly number[];
  /** The `scan_issues` row id of each issue (same order). */
  readonly issueIds?: readonly number[];
}

import { type CatalogIssue, loadIssues, loadScan, type ScanResult } from "../../catalog/index.js";
import { KeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";

/** The stored scan, or a CATALOG_NOT_SCANNED error telling the user to scan first. */
export async function requireScan(store: Store): Promise<ScanResult> {
  const scan = await loadScan(store);
  if (!scan) {
    throw new KeelError("CATALOG_NOT_SCANNED", "This scope has not been scanned yet.", {
      hint: "Run `keel scan` first.",
    });
  }
  return scan;
}

/** The stored issues alone (no nodes or links read), or CATALOG_NOT_SCANNED. */
export async function requireIssues(store: Store): Promise<CatalogIssue[]> {
  const issues = await loadIssues(store);
  if (!issues) {
    throw new KeelError("CATALOG_NOT_SCANNED", "This scope has not been scanned yet.", {
      hint: "Run `keel scan` first.",
    });
  }
  return issues;
}

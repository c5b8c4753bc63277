import { KeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import type { CatalogIssue, ScanResult } from "../model.js";
import { loadIssues, loadScan } from "./load.js";

/** The error of a scope that has no stored scan yet (CATALOG_NOT_SCANNED). */
export function notScanned(): KeelError {
  return new KeelError("CATALOG_NOT_SCANNED", "This scope has not been scanned yet.", {
    hint: "Run `keel scan` first.",
  });
}

/** The stored scan, or a CATALOG_NOT_SCANNED error telling the user to scan first. */
export async function requireScan(store: Store): Promise<ScanResult> {
  const scan = await loadScan(store);
  if (!scan) throw notScanned();
  return scan;
}

/** The stored issues alone (no nodes or links read), or CATALOG_NOT_SCANNED. */
export async function requireIssues(store: Store): Promise<CatalogIssue[]> {
  const issues = await loadIssues(store);
  if (!issues) throw notScanned();
  return issues;
}

import type { Kysely, Transaction } from "kysely";
import type { KernelDatabase, Store } from "../../store/index.js";
import type { FileStamp } from "../fs/read-file.js";
import type { ScanResult } from "../model.js";
import { persistScanSqlite } from "./persist-sqlite.js";
import { issueRow, linkRow, nodeRow } from "./rows.js";

const CHUNK = 400;

async function insertChunked<T>(
  rows: readonly T[],
  insert: (chunk: T[]) => Promise<unknown>,
): Promise<void> {
  for (let start = 0; start < rows.length; start += CHUNK) {
    await insert(rows.slice(start, start + CHUNK));
  }
}

/**
 * Replaces the stored scan (`scan_nodes`, `scan_links`, `scan_issues`, `scan_files`,
 * `scan_results`) with `result`, in one transaction: a reader sees the previous scan or this
 * one, never half of either, and a failed write leaves the previous scan as it was.
 *
 * @example
 * const outcome = await runScan({ root, registry });
 * await persistScan(store, outcome.result, outcome.stamps, outcome.settingsHash);
 */
export async function persistScan(
  store: Store,
  result: ScanResult,
  stamps: ReadonlyMap<string, FileStamp>,
  settingsHash: string,
): Promise<void> {
  if (store.native.dialect === "sqlite") {
    persistScanSqlite(store.native.database, result, stamps, settingsHash);
    return;
  }
  await store.transaction((tx) => writeScan(tx, result, stamps, settingsHash));
}

async function writeScan(
  tx: Transaction<KernelDatabase> | Kysely<KernelDatabase>,
  result: ScanResult,
  stamps: ReadonlyMap<string, FileStamp>,
  settingsHash: string,
): Promise<void> {
  await tx.deleteFrom("scan_links").execute();
  await tx.deleteFrom("scan_issues").execute();
  await tx.deleteFrom("scan_nodes").execute();
  await tx.deleteFrom("scan_files").execute();
  await tx.deleteFrom("scan_results").execute();
  await insertChunked(
    result.nodes.map((node) => nodeRow(node, result.scannedAt)),
    (chunk) => tx.insertInto("scan_nodes").values(chunk).execute(),
  );
  await insertChunked(result.links.map(linkRow), (chunk) =>
    tx.insertInto("scan_links").values(chunk).execute(),
  );
  await insertChunked(result.issues.map(issueRow), (chunk) =>
    tx.insertInto("scan_issues").values(chunk).execute(),
  );
  const files = [...stamps].map(([path, stamp]) => ({
    path,
    modified_at: stamp.modifiedAt,
    file_bytes: stamp.size,
  }));
  await insertChunked(files, (chunk) => tx.insertInto("scan_files").values(chunk).execute());
  await tx
    .insertInto("scan_results")
    .values({
      id: 1,
      scanned_at: result.scannedAt,
      scope: result.scope,
      roots_json: JSON.stringify(result.roots),
      adapters_json: JSON.stringify(result.adapters ?? []),
      scanned_by_json: result.scannedBy ? JSON.stringify(result.scannedBy) : null,
      files_walked_count: result.stats.filesWalked,
      files_skipped_count: result.stats.filesSkipped,
      duration_ms: result.stats.durationMs,
      settings_hash: settingsHash,
    })
    .execute();
}

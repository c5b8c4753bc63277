import type { Transaction } from "kysely";
import type { KernelDatabase, Store } from "../../store/index.js";
import type { FileStamp } from "../fs/read-file.js";
import type { ScanResult } from "../model.js";
import type { PriorScan } from "../scan/prior.js";
import { persistScanSqlite } from "./persist-sqlite.js";
import { issueRow, linkRow, nodeRow } from "./rows.js";
import { deltaPlan, fullPlan, type ScanFacts, type WritePlan } from "./write-plan.js";

const CHUNK = 400;

async function chunked<T>(
  rows: readonly T[],
  write: (chunk: T[]) => Promise<unknown>,
): Promise<void> {
  for (let start = 0; start < rows.length; start += CHUNK) {
    await write(rows.slice(start, start + CHUNK));
  }
}

/**
 * Stores `result` in `scan_*` in one transaction: a reader sees the previous scan or this one,
 * never half of either, and a failed write leaves the previous scan as it was. Given the stored
 * scan the result started from (`prior`, as `loadPriorScan` returns it), only the rows that
 * differ are deleted and inserted; without it every row is replaced.
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
  prior?: PriorScan | null,
): Promise<void> {
  // The delta holds only if the stored scan is still the one it was computed against (another
  // scan may have been stored meanwhile); otherwise every row is replaced.
  await writeScanPlan(store, result, settingsHash, (storedScannedAt) =>
    prior && storedScannedAt === prior.scannedAt
      ? deltaPlan(prior, result, stamps)
      : fullPlan(result, stamps),
  );
}

/**
 * Writes the rows `planFor` gives, in one transaction, with `scan_results` replaced by `facts`.
 * `planFor` sees the stored scan's time inside the transaction and returns null when its plan
 * no longer applies (another scan was stored meanwhile): then nothing is written and the result
 * is false.
 */
export async function writeScanPlan(
  store: Store,
  facts: ScanFacts,
  settingsHash: string,
  planFor: (storedScannedAt: number | null) => WritePlan | null,
): Promise<boolean> {
  if (store.native.dialect === "sqlite") {
    return persistScanSqlite(store.native.database, facts, planFor, settingsHash);
  }
  return store.transaction(async (tx) => {
    const stored = await tx
      .selectFrom("scan_results")
      .select("scanned_at")
      .where("id", "=", 1)
      .forUpdate()
      .executeTakeFirst();
    const plan = planFor(stored ? Number(stored.scanned_at) : null);
    if (!plan) return false;
    await writePlan(tx, facts, plan, settingsHash);
    return true;
  });
}

async function writePlan(
  tx: Transaction<KernelDatabase>,
  result: ScanFacts,
  plan: WritePlan,
  settingsHash: string,
): Promise<void> {
  if (plan.replaceAll) {
    await tx.deleteFrom("scan_links").execute();
    await tx.deleteFrom("scan_issues").execute();
    await tx.deleteFrom("scan_nodes").execute();
    await tx.deleteFrom("scan_files").execute();
  }
  await tx.deleteFrom("scan_results").execute();
  await chunked(plan.deleteLinkIds, (ids) =>
    tx.deleteFrom("scan_links").where("id", "in", ids).execute(),
  );
  await chunked(plan.deleteIssueIds, (ids) =>
    tx.deleteFrom("scan_issues").where("id", "in", ids).execute(),
  );
  await chunked(plan.deleteNodes, (paths) =>
    tx.deleteFrom("scan_nodes").where("path", "in", paths).execute(),
  );
  await chunked(plan.deleteFiles, (paths) =>
    tx.deleteFrom("scan_files").where("path", "in", paths).execute(),
  );
  await chunked(
    plan.insertNodes.map((node) => nodeRow(node, result.scannedAt)),
    (rows) => tx.insertInto("scan_nodes").values(rows).execute(),
  );
  await chunked(plan.insertLinks.map(linkRow), (rows) =>
    tx.insertInto("scan_links").values(rows).execute(),
  );
  await chunked(plan.insertIssues.map(issueRow), (rows) =>
    tx.insertInto("scan_issues").values(rows).execute(),
  );
  await chunked(
    plan.insertFiles.map(([path, stamp]) => ({
      path,
      modified_at: stamp.modifiedAt,
      file_bytes: stamp.size,
    })),
    (rows) => tx.insertInto("scan_files").values(rows).execute(),
  );
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

import type { Store } from "../../store/index.js";
import type { AuditWriter } from "../audit/audit-writer.js";
import { PostgresLedgerWrites } from "./ledger-postgres.js";
import { SqliteLedgerWrites } from "./ledger-sqlite.js";
import type { LedgerWrites } from "./ledger-writes.js";

/**
 * The store's ledger writes, on its native driver. `concurrent` says whether other calls are
 * under way: their writes then share commits (group commit, on both dialects), while a lone
 * caller commits at once rather than wait a turn of the event loop for company.
 */
export function ledgerWritesFor(
  store: Store,
  audit: AuditWriter,
  concurrent: () => boolean,
): LedgerWrites {
  const native = store.native;
  return native.dialect === "sqlite"
    ? new SqliteLedgerWrites(store, native.database, concurrent)
    : new PostgresLedgerWrites(native.pool, audit, concurrent);
}

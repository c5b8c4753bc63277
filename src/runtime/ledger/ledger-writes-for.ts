import type { Store } from "../../store/index.js";
import type { AuditWriter } from "../audit/audit-writer.js";
import { PostgresLedgerWrites } from "./ledger-postgres.js";
import { SqliteLedgerWrites } from "./ledger-sqlite.js";
import type { LedgerWrites } from "./ledger-writes.js";

/** The store's ledger writes, on its native driver. */
export function ledgerWritesFor(store: Store, audit: AuditWriter): LedgerWrites {
  const native = store.native;
  return native.dialect === "sqlite"
    ? new SqliteLedgerWrites(store, native.database)
    : new PostgresLedgerWrites(native.pool, audit);
}

/**
 * The child process of the frozen-worker test: one ledgered call of `test.pay` (see
 * fenced-bank.ts), frozen by its parent with SIGSTOP where the mode says, then woken.
 *
 * - `between`: freezes after `attempted` is committed, before the tool runs: prints `attempted`
 *   and waits for a `go` line.
 * - `inside`: freezes inside the tool, before the effect: prints `entered <fence>` and waits
 *   for `go`.
 * Prints the call's outcome as one JSON line at the end.
 *
 * Usage: late-worker-child <between|inside> <db path or url> <trace> <bank.db> <leaseTtlMs>
 */
import { createInterface } from "node:readline";
import { isKeelError } from "../../../src/core/index.js";
import { AuditWriter, ToolLedger } from "../../../src/runtime/index.js";
import { PostgresLedgerWrites } from "../../../src/runtime/ledger/ledger-postgres.js";
import { SqliteLedgerWrites } from "../../../src/runtime/ledger/ledger-sqlite.js";
import { openStore } from "../../../src/store/index.js";
import { bankTools, openBank } from "../support/fenced-bank.js";

const [mode, db, trace, bankPath, ttl] = process.argv.slice(2);
if ((mode !== "between" && mode !== "inside") || !db || !trace || !bankPath || !ttl) {
  console.error("usage: late-worker-child <between|inside> <db> <trace> <bank.db> <leaseTtlMs>");
  process.exit(2);
}
// Bundled, this file cannot find the migrations next to the store's source: the parent says where.
const store = await openStore({
  db,
  backupBeforeMigrate: false,
  migrationsDir: process.env.KEEL_MIGRATIONS_DIR,
});
const lines = createInterface({ input: process.stdin });
const go = new Promise<void>((resolve) => lines.on("line", (line) => line === "go" && resolve()));
if (mode === "between") {
  // The instant under test: the claim is committed, the tool has not started.
  for (const writes of [SqliteLedgerWrites.prototype, PostgresLedgerWrites.prototype]) {
    const attempt = writes.attemptUnlessLive;
    writes.attemptUnlessLive = async function (this: typeof writes, ...args) {
      const written = await attempt.apply(this, args);
      process.stdout.write("attempted\n");
      await go;
      return written;
    };
  }
}
const tools = bankTools(openBank(bankPath), "child", async (context) => {
  if (mode !== "inside") return;
  process.stdout.write(`entered ${context.fence}\n`);
  await go;
});
const ledger = new ToolLedger({
  store,
  tools,
  audit: new AuditWriter(store),
  leaseTtlMs: Number(ttl),
});
let outcome: Record<string, unknown>;
try {
  const done = await ledger.call({
    tool: "test.pay",
    input: {},
    idempotencyKey: "pay-1",
    traceId: trace,
    riskLevel: "high",
    autonomyLevel: "A4",
  });
  outcome = { status: done.toolCall.status };
} catch (error) {
  outcome = { code: isKeelError(error) ? error.code : String(error) };
}
process.stdout.write(`${JSON.stringify(outcome)}\n`);
lines.close();
await store.close();

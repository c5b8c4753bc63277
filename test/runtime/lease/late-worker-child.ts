import { isKeelError } from "../../../src/core/index.js";
import { AuditWriter, ToolLedger } from "../../../src/runtime/index.js";
import { PostgresLedgerWrites } from "../../../src/runtime/ledger/ledger-postgres.js";
import { SqliteLedgerWrites } from "../../../src/runtime/ledger/ledger-sqlite.js";
import { openChildStore, parentSignal } from "../../support/child-store.js";
import { bankTools, openBank } from "../support/fenced-bank.js";

const [mode, db, trace, bankPath, ttl] = process.argv.slice(2);
if ((mode !== "between" && mode !== "inside") || !db || !trace || !bankPath || !ttl) {
  console.error("usage: late-worker-child <between|inside> <db> <trace> <bank.db> <leaseTtlMs>");
  process.exit(2);
}
const store = await openChildStore(db);
const parent = parentSignal();
const go = parent.go;
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
parent.close();
await store.close();

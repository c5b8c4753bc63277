/**
 * The child process of the ledger lease test. Prints one JSON line per outcome.
 *
 * - `hold <db> <task> <key> <leaseTtlMs>`: calls `test.hang` for run `<task>`; the tool prints
 *   `in-flight <owner>` and answers when a `go` line arrives on stdin (or never, if killed).
 * - `recover <db> <task> <key>`: recovers run `<task>`'s interrupted calls, then calls the same
 *   key; prints what recovery marked and how the call ended.
 *
 * Usage: call-lease-worker <hold|recover> <db path or url> <task> <key> [leaseTtlMs]
 */
import { createInterface } from "node:readline";
import { isKeelError } from "../../../src/core/index.js";
import { AuditWriter, ToolLedger, ToolRegistry } from "../../../src/runtime/index.js";
import { openStore } from "../../../src/store/index.js";
import { openSpec } from "../support/tools.js";

const [mode, db, task, key, ttl] = process.argv.slice(2);
if (!mode || !db || !task || !key) {
  console.error("usage: call-lease-worker <hold|recover> <db> <task> <key> [leaseTtlMs]");
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
const tools = new ToolRegistry();
let ledger: ToolLedger | undefined;
tools.register(openSpec("hang", "external", "answers when the parent says go"), async () => {
  process.stdout.write(`in-flight ${ledger?.owner}\n`);
  await go;
  return { pid: process.pid };
});
const audit = new AuditWriter(store);
ledger = new ToolLedger({ store, tools, audit, leaseTtlMs: ttl ? Number(ttl) : undefined });
const call = () =>
  (ledger as ToolLedger).call({
    tool: "test.hang",
    input: {},
    idempotencyKey: key,
    traceId: task,
    taskId: task,
    riskLevel: "low",
    autonomyLevel: "A4",
  });
const settle = async (work: ReturnType<typeof call>) => {
  try {
    return { status: (await work).toolCall.status };
  } catch (error) {
    return { code: isKeelError(error) ? error.code : String(error) };
  }
};

if (mode === "hold") {
  process.stdout.write(`${JSON.stringify(await settle(call()))}\n`);
} else {
  const marked = await ledger.recoverInterrupted({ taskId: task });
  // The call again, answered at once if recovery left nothing in doubt (nobody says go).
  const again = await settle(call());
  process.stdout.write(
    `${JSON.stringify({
      marked: marked.map((c) => ({ id: c.tool_call_id, task: c.task_id, status: c.status })),
      again,
    })}\n`,
  );
}
lines.close();
await store.close();

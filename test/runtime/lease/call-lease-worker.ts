import { isKeelError } from "../../../src/core/index.js";
import { AuditWriter, ToolLedger, ToolRegistry } from "../../../src/runtime/index.js";
import { openChildStore, parentSignal } from "../../support/child-store.js";
import { openSpec } from "../support/tools.js";

const [mode, db, task, key, ttl] = process.argv.slice(2);
if (!mode || !db || !task || !key) {
  console.error("usage: call-lease-worker <hold|recover> <db> <task> <key> [leaseTtlMs]");
  process.exit(2);
}
const store = await openChildStore(db);
const parent = parentSignal();
const go = parent.go;
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
parent.close();
await store.close();

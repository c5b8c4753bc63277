/**
 * The governed runtime end to end: an incoming event is routed, a risky tool call waits for an
 * approval, `keel approvals approve` lets it finish, and `keel audit <trace_id>` tells the story.
 *
 *   npx tsx examples/governed-refund.ts start            # ingest, route, run → paused on an approval
 *   npx keel approvals approve <approval_id> --by ana --capability approve:payments.refund
 *   npx tsx examples/governed-refund.ts resume <run_id>  # the refund runs, the customer is told
 *   npx keel audit <trace_id>                            # the whole story, hash-chained
 *
 * Uses the project database (./.keel/keel.db; `--db <path|url>` or KEEL_DATABASE_URL to move it).
 * The refund tool appends to `<.keel>/refunds.log`, a stand-in for a payment provider.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Annotation, END, START, StateGraph } from "../src/graph/index.js";
import {
  AuditWriter,
  GovernedRuntime,
  governedNode,
  IngestService,
  Router,
  ToolRegistry,
} from "../src/runtime/index.js";
import { openStore } from "../src/store/index.js";

const args = process.argv.slice(2);
const dbFlag = args.indexOf("--db");
const db = dbFlag >= 0 ? args[dbFlag + 1] : undefined;
const [command = "start", runIdArg] = args.filter((_, i) => i !== dbFlag && i !== dbFlag + 1);

const store = await openStore({ db });
const ledgerFile = join(store.location.keelDir, "refunds.log");

const tools = new ToolRegistry();
tools.register(
  {
    name: "refund",
    namespace: "payments",
    version: "1.0.0",
    description: "Refunds an order through the payment provider",
    input_schema: {
      type: "object",
      properties: { order: { type: "string" }, amount: { type: "number" } },
      required: ["order", "amount"],
    },
    output_schema: {
      type: "object",
      properties: { receipt: { type: "string" } },
      required: ["receipt"],
    },
    side_effects: "external",
    permissions: ["payments:refund"],
  },
  (input, context) => {
    const { order, amount } = input as { order: string; amount: number };
    appendFileSync(ledgerFile, `${context.idempotencyKey} refund ${order} ${amount}\n`);
    return { receipt: `R-${order}-${amount}` };
  },
);
tools.register(
  {
    name: "send",
    namespace: "email",
    version: "1.0.0",
    description: "Emails a customer",
    input_schema: {
      type: "object",
      properties: { to: { type: "string" }, body: { type: "string" } },
    },
    output_schema: { type: "object" },
    side_effects: "external",
  },
  () => ({}),
);

const Refund = Annotation.Root({
  order: Annotation<string>(),
  amount: Annotation<number>(),
  receipt: Annotation<string>(),
});
const runtime = new GovernedRuntime({ store, tools });
const graph = new StateGraph(Refund)
  .addNode(
    "refund",
    governedNode(async (state: { order: string; amount: number }, ctx) => {
      const out = (await ctx.call("payments.refund", state)) as { receipt: string };
      return { receipt: out.receipt };
    }),
  )
  .addNode(
    "notify",
    governedNode(async (state: { order: string; receipt: string }, ctx) => {
      await ctx.call(
        "email.send",
        { to: `customer-${state.order}@example.com`, body: `Refunded: ${state.receipt}` },
        { risk: "low" },
      );
      return {};
    }),
  )
  .addEdge(START, "refund")
  .addEdge("refund", "notify")
  .addEdge("notify", END)
  .compile({ checkpointer: runtime.checkpointer });

try {
  if (command === "start") {
    const audit = new AuditWriter(store);
    const ingested = await new IngestService({ store, audit }).ingest({
      kind: "webhook",
      connectorId: "shop",
      messageId: `refund-${Date.now()}`,
      body: {
        text: "Please refund order 1042",
        intent: "refund.issue",
        order: "1042",
        amount: 250,
      },
    });
    if (ingested.status !== "accepted") throw new Error(`event not accepted: ${ingested.status}`);
    const event = ingested.event;
    const router = new Router(
      JSON.parse(readFileSync(new URL("./governed-routing.json", import.meta.url), "utf8")),
    );
    const route = await router.route(event, { autonomy: "A2", audit });
    console.log(`routed: ${route.decision.notes}`);
    const started = await runtime.start({
      graph,
      input: { order: "1042", amount: 250 },
      autonomy: "A2",
      capabilities: ["payments:refund"],
      event,
      route,
      graphId: "refund-example",
    });
    console.log(`run ${started.run.id}: ${started.run.status}`);
    for (const wait of started.waitingFor) {
      console.log(`waiting for ${wait.kind} ${wait.approval_id ?? wait.tool_call_id}`);
      console.log(
        `  approve: npx keel approvals approve ${wait.approval_id} --by ana --capability approve:payments.refund`,
      );
    }
    console.log(`  then:    npx tsx examples/governed-refund.ts resume ${started.run.id}`);
    console.log(`  story:   npx keel audit ${started.task.trace_id}`);
    console.log(
      JSON.stringify({
        runId: started.run.id,
        traceId: started.task.trace_id,
        approvalId: started.waitingFor[0]?.approval_id ?? null,
      }),
    );
  } else if (command === "resume" && runIdArg) {
    const done = await runtime.resume(runIdArg, graph);
    console.log(
      `run ${done.run.id}: ${done.run.status} (receipt ${(done.result as { receipt?: string }).receipt ?? "-"})`,
    );
    console.log(JSON.stringify({ runId: done.run.id, status: done.run.status }));
  } else {
    console.error("usage: governed-refund.ts start | resume <run_id> [--db <path|url>]");
    process.exitCode = 2;
  }
} finally {
  await store.close();
}

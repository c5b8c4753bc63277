/**
 * The governed runtime end to end: an incoming event is routed, a risky tool call waits for an
 * approval, `keel approvals approve` lets it finish, and `keel audit <trace_id>` tells the story.
 *
 *   npx tsx examples/governed-refund.ts start        # ingest, route, run → paused on an approval
 *   npm run keel -- approvals approve <approval_id> --capability approve:payments.refund --reason "checked"
 *                                                    # decides, then finishes the run (the app
 *                                                    # module it recorded has its tools and graph)
 *   npm run keel -- audit <trace_id>                 # the whole story, hash-chained
 *
 * `resume <run_id>` continues a run from here instead (after `approve --no-resume`). Uses the
 * project database (./.keel/keel.db; `--db <path|url>` or KEEL_DATABASE_URL to move it). The
 * application (tools, graph) is `governed-refund-app.ts`.
 */
import { readFileSync } from "node:fs";
import { AuditWriter, IngestService, loadGovernedApp, Router } from "../src/runtime/index.js";
import { openStore } from "../src/store/index.js";

const args = process.argv.slice(2);
const dbFlag = args.indexOf("--db");
const db = dbFlag >= 0 ? args[dbFlag + 1] : undefined;
const [command = "start", runIdArg] = args.filter((_, i) => i !== dbFlag && i !== dbFlag + 1);

const store = await openStore({ db });
// The application module: recorded with the run, so operators' tools can continue it.
const app = new URL("./governed-refund-app.ts", import.meta.url).href;
const { runtime, graph } = await loadGovernedApp(app, store);

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
    const route = await router.route(event, { autonomy: "A3", audit });
    console.log(`routed: ${route.decision.notes}`);
    const started = await runtime.start({
      graph,
      input: { order: "1042", amount: 250 },
      autonomy: "A3",
      capabilities: ["payments:refund"],
      event,
      route,
      graphId: "refund-example",
      app,
    });
    console.log(`run ${started.run.id}: ${started.run.status}`);
    for (const wait of started.waitingFor) {
      console.log(`waiting for ${wait.kind} ${wait.approval_id ?? wait.tool_call_id}`);
      // (From this repository, `keel` is `npm run keel --`.)
      console.log(`  decide:  ${wait.how_to_continue}`);
    }
    console.log(`  story:   keel audit ${started.task.trace_id}`);
    console.log(
      JSON.stringify({
        runId: started.run.id,
        traceId: started.task.trace_id,
        approvalId: started.waitingFor[0]?.approval_id ?? null,
        howToApprove: started.waitingFor[0]?.how_to_continue ?? null,
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

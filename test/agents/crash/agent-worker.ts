/**
 * Child process of the agent crash test. `start <db> <effects> <trial>` starts a governed run of
 * the paying agent (graph id = the trial). Prints `ready` once the store is open, each payment's
 * phases, and the outcome as one JSON line at the end.
 */
import * as callbacks from "@langchain/core/callbacks/base";
import * as documents from "@langchain/core/documents";
import * as messages from "@langchain/core/messages";
import { provideOptionalPeer } from "../../../src/core/index.js";
import { GovernedRuntime } from "../../../src/runtime/index.js";
import { openChildStore } from "../../support/child-store.js";
import { payingAgent, paymentTools } from "./agent-crash-app.js";

// The bundle's own copy of LangChain, so that Keel does not load a second one from node_modules.
provideOptionalPeer("@langchain/core/messages", messages);
provideOptionalPeer("@langchain/core/documents", documents);
provideOptionalPeer("@langchain/core/callbacks/base", callbacks);

const [mode, db, effects, id] = process.argv.slice(2);
if (mode !== "start" || !db || !effects || !id) {
  console.error("usage: agent-worker start <db> <effects> <trial>");
  process.exit(2);
}
const store = await openChildStore(db);
const runtime = new GovernedRuntime({
  store,
  tools: paymentTools(effects, (phase) => process.stdout.write(`${phase}\n`)),
});
const agent = payingAgent(runtime);
process.stdout.write("ready\n");
const outcome = await runtime.start({
  graph: agent,
  input: { messages: [new messages.HumanMessage("pay bob three times")] },
  autonomy: "A4",
  graphId: id,
});
process.stdout.write(
  `${JSON.stringify({ runId: outcome.run.id, status: outcome.run.status, waitingFor: outcome.waitingFor })}\n`,
);
await store.close();

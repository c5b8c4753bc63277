/**
 * Child process of the ledger crash test. `start <db> <effects> <trial>` starts a governed run of
 * the crash graph (graph id = the trial); the test recovers it itself after a kill. Prints `ready`
 * once the store is open and the outcome as one JSON line at the end.
 */

import { GovernedRuntime } from "../../../src/runtime/index.js";
import { openChildStore } from "../../support/child-store.js";
import { crashGraph, crashTools } from "./ledger-crash-app.js";

const [mode, db, effects, id] = process.argv.slice(2);
if (mode !== "start" || !db || !effects || !id) {
  console.error("usage: ledger-worker start <db> <effects> <trial>");
  process.exit(2);
}
const store = await openChildStore(db);
// Each call's phases as lines, so that the parent can aim a kill at them.
const runtime = new GovernedRuntime({
  store,
  tools: crashTools(effects, (phase) => process.stdout.write(`${phase}\n`)),
});
const graph = crashGraph(runtime);
process.stdout.write("ready\n");
const outcome = await runtime.start({ graph, input: { done: 0 }, autonomy: "A4", graphId: id });
process.stdout.write(
  `${JSON.stringify({ runId: outcome.run.id, status: outcome.run.status, waitingFor: outcome.waitingFor })}\n`,
);
await store.close();

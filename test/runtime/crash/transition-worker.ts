/**
 * Child process of the transition crash test. `<db> <document>` starts a governed run of the
 * document on thread "crash"; after the first `ir.transition` audit event is committed it prints
 * `audited` and hangs, before the step's checkpoint, where the parent kills it with SIGKILL.
 */
import { AuditWriter, startGovernedDocument } from "../../../src/runtime/index.js";
import { openChildStore } from "../../support/child-store.js";

const [db, document] = process.argv.slice(2);
if (!db || !document) {
  console.error("usage: transition-worker <db> <document>");
  process.exit(2);
}
const store = await openChildStore(db);
// The instant under test: the transition's event is in the log, the step's checkpoint is not.
const write = AuditWriter.prototype.write;
AuditWriter.prototype.write = async function (this: AuditWriter, ...args) {
  const event = await write.apply(this, args);
  if (args[1].type === "ir.transition") {
    process.stdout.write(`audited ${event.audit_id}\n`);
    await new Promise(() => setInterval(() => {}, 1000));
  }
  return event;
};
process.stdout.write("ready\n");
await startGovernedDocument(store, { path: document }, { input: { n: 1 }, threadId: "crash" });
process.stdout.write("finished\n");
await store.close();

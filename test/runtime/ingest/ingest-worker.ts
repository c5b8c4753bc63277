/**
 * The child process of the multi-process ingestion test: opens the store, prints `ready`, and on
 * a `go` line ingests one webhook delivery (the same for every child); prints its status as JSON.
 *
 * Usage: ingest-worker <db path or url> <message id>
 */
import { createInterface } from "node:readline";
import { AuditWriter, IngestService } from "../../../src/runtime/index.js";
import { openChildStore } from "../../support/child-store.js";

const [db, messageId] = process.argv.slice(2);
if (!db || !messageId) {
  console.error("usage: ingest-worker <db> <message id>");
  process.exit(2);
}
const store = await openChildStore(db);
const ingest = new IngestService({ store, audit: new AuditWriter(store) });
const lines = createInterface({ input: process.stdin });
process.stdout.write("ready\n");
await new Promise<void>((resolve) => lines.on("line", (line) => line === "go" && resolve()));
const outcome = await ingest.ingest({
  kind: "webhook",
  connectorId: "shop",
  messageId,
  body: { text: "Please refund order 7", intent: "refund.issue" },
});
process.stdout.write(
  `${JSON.stringify({
    status: outcome.status,
    eventId: outcome.status === "rejected" ? null : outcome.event.event_id,
    originalEventId: outcome.status === "duplicate" ? outcome.originalEventId : null,
  })}\n`,
);
lines.close();
await store.close();

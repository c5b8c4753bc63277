/**
 * A writer process on one SQLite database, for test/memory/sqlite-processes.test.ts: opens the
 * store, prints `ready`, waits for `go` on stdin, then runs four writes at once in this process
 * (`record` on target `contended`, or `supersede <old id>`) and prints one JSON line of outcomes.
 */
import { createInterface } from "node:readline";
import { DecisionMemory } from "../../../src/memory/index.js";
import { openStore } from "../../../src/store/index.js";

const [db = "", mode = "record", old = ""] = process.argv.slice(2);
const store = await openStore({ db, backupBeforeMigrate: false });
const memory = new DecisionMemory(store);
const lines = createInterface({ input: process.stdin });
console.log("ready");
for await (const line of lines) if (line === "go") break;
const outcomes = await Promise.allSettled(
  Array.from({ length: 4 }, (_, i) =>
    mode === "record"
      ? memory.record({
          title: `Writer ${process.pid} ${i}`,
          target: "contended",
          rationale: "Measured under contention",
        })
      : memory.supersede({
          title: `Successor ${process.pid} ${i}`,
          target: "contended",
          rationale: "A better way was found here",
          old_decision_ids: [old],
        }),
  ),
);
console.log(
  JSON.stringify(
    outcomes.map((o) =>
      o.status === "fulfilled"
        ? { id: o.value.id }
        : { code: (o.reason as { code?: string }).code ?? String(o.reason) },
    ),
  ),
);
lines.close();
await store.close();

/**
 * Child-process entry for `memory.test.ts`: `node --expose-gc --import tsx memory-probe.ts
 * <keel|langgraph> [--retain]` prints one JSON `RetentionReport` line. A separate process so that
 * the heap holds nothing but this run and gc() is available whatever the test pool does.
 */
import { langgraph, loadKeel } from "./api.js";
import { measureRetention } from "./retention.js";

const [library = "keel", ...flags] = process.argv.slice(2);
const api = library === "langgraph" ? langgraph : await loadKeel();
const report = await measureRetention(api, {
  steps: 10_000,
  warmupSteps: 1_000,
  retainPayloads: flags.includes("--retain"),
});
process.stdout.write(`${JSON.stringify(report)}\n`);

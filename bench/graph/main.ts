/**
 * `npm run bench graph`: Keel's graph engine against @langchain/langgraph in the same process, on
 * the workloads (medians of rounds after warm-up), then the 10,000-step retention check.
 */
import { langgraph, loadKeel } from "../../test/graph/parity/api.js";
import { measureRetention, type RetentionReport } from "../../test/graph/parity/retention.js";
import { type Comparison, printTable } from "../lib/report.js";
import { alternatingMicrosPerUnit } from "./measure.js";
import { workloads } from "./workloads.js";

// LangGraph.js adds an abort listener per task to one signal and Node warns past ten (the Send
// workload); the warning is about the peer's internals, not a result, so it is kept off the table.
process.removeAllListeners("warning");
process.on("warning", (warning) => {
  if (warning.name !== "MaxListenersExceededWarning") console.warn(warning);
});

const keel = await loadKeel();
const wallRows: Comparison[] = [];
const cpuRows: Comparison[] = [];
for (const workload of workloads) {
  const [keelFigures, peerFigures] = await alternatingMicrosPerUnit(
    [() => workload.prepare(keel), () => workload.prepare(langgraph)],
    workload.unitsPerRun,
  );
  const row = {
    name: workload.name,
    unit: workload.unit,
    peerName: "langgraph",
    target: workload.target,
  };
  wallRows.push({ ...row, keel: keelFigures?.wall ?? Number.NaN, peer: peerFigures?.wall });
  cpuRows.push({ ...row, keel: keelFigures?.cpu ?? Number.NaN, peer: peerFigures?.cpu });
}
printTable(
  "graph engine: wall time per unit (median of 7 alternating rounds, lower is better)",
  wallRows,
);
printTable("graph engine: CPU time per unit, same rounds (robust to a loaded machine)", cpuRows);

const retention: RetentionReport[] = [];
for (const api of [keel, langgraph]) {
  retention.push(await measureRetention(api, { steps: 10_000, warmupSteps: 1_000 }));
}
const megabytes = (bytes: number) => (bytes / (1024 * 1024)).toFixed(2);
console.log("\n## graph engine: heap retained by a 10,000-step loop, no checkpointer\n");
console.log("library    heap at step 1,000  heap at step 10,000  growth    per step");
for (const report of retention) {
  console.log(
    `${report.library.padEnd(9)}  ${megabytes(report.heapAtWarmup).padStart(15)} MB  ${megabytes(
      report.heapAtEnd,
    ).padStart(
      16,
    )} MB  ${megabytes(report.growthBytes).padStart(6)} MB  ${report.growthBytesPerStep.toFixed(0)} B`,
  );
}

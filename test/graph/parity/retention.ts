/**
 * Measures whether a long run without a checkpointer keeps per-step garbage alive. A loop node
 * makes a fresh ~2 KB payload every step and writes it to a last-value key, so each step's
 * payload becomes garbage one step later. The heap is measured after a full GC at a warm-up step
 * and at the last step, from inside the node, so the run is live at both points; anything the
 * engine keeps per step (write logs, snapshots, task records) shows as growth between them.
 *
 * Shared by `memory.test.ts` (through `memory-probe.ts`, in a child started with --expose-gc) and
 * by `bench/graph`. `retainPayloads` makes the node itself leak every payload: the control that
 * proves the measurement can see a leak.
 */
import type { GraphApi } from "./api.js";
import { num } from "./programs/common.js";

export interface RetentionOptions {
  steps: number;
  warmupSteps: number;
  retainPayloads?: boolean;
}

export interface RetentionReport {
  library: string;
  steps: number;
  finalN: number;
  heapAtWarmup: number;
  heapAtEnd: number;
  growthBytes: number;
  growthBytesPerStep: number;
}

const payloadLength = 256;

function heapAfterFullGc(): number {
  const gc = globalThis.gc;
  if (gc === undefined) throw new Error("retention measurement needs node --expose-gc");
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export async function measureRetention(
  api: GraphApi,
  options: RetentionOptions,
): Promise<RetentionReport> {
  const { steps, warmupSteps } = options;
  const leaked: number[][] = [];
  let heapAtWarmup = Number.NaN;
  let heapAtEnd = Number.NaN;
  const State = api.Annotation.Root({ n: api.Annotation(), payload: api.Annotation() });
  const graph = new api.StateGraph(State)
    .addNode("step", (state) => {
      const n = num(state, "n") + 1;
      const payload = new Array<number>(payloadLength).fill(n);
      if (options.retainPayloads) leaked.push(payload);
      if (n === warmupSteps) heapAtWarmup = heapAfterFullGc();
      if (n === steps) heapAtEnd = heapAfterFullGc();
      return { n, payload };
    })
    .addEdge(api.START, "step")
    .addConditionalEdges("step", (state) => (num(state, "n") < steps ? "step" : api.END))
    .compile();
  const result = await graph.invoke({ n: 0 }, { recursionLimit: steps + 10 });
  const growthBytes = heapAtEnd - heapAtWarmup;
  return {
    library: api.label,
    steps,
    finalN: num(result, "n"),
    heapAtWarmup,
    heapAtEnd,
    growthBytes,
    growthBytesPerStep: growthBytes / (steps - warmupSteps),
  };
}

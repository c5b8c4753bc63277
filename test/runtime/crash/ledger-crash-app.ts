/**
 * The ledger crash test's application: a chain of NODES governed nodes, each calling the `fs.append`
 * write tool CALLS times (even nodes one call after another, odd nodes all at once); the tool appends its idempotency key as a line to a file (a real,
 * non-idempotent effect). Shared by the worker (child process) and the parent's checks.
 */
import { appendFileSync } from "node:fs";
import { Annotation, END, START, StateGraph } from "../../../src/graph/index.js";
import {
  type GovernedGraph,
  type GovernedRuntime,
  governedNode,
  ToolRegistry,
} from "../../../src/runtime/index.js";

export const NODES = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const CALLS = 2;

/**
 * `onPhase` hears `before` (the call's `attempted` is committed, the effect not yet made) and
 * `after` (the effect made, `succeeded` not yet committed) of every call: the crash test aims
 * its kills at these instants.
 */
export function crashTools(
  effectsFile: string,
  onPhase?: (phase: "before" | "after") => void,
): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(
    {
      name: "append",
      namespace: "fs",
      version: "1.0.0",
      description: "appends a line to a file",
      input_schema: {
        type: "object",
        properties: { line: { type: "string" } },
        required: ["line"],
      },
      output_schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
      side_effects: "write",
    },
    async (_input, context) => {
      // Pauses around the effect widen the windows a kill can land in: after `attempted` was
      // committed but before the effect, and after the effect but before `succeeded`.
      onPhase?.("before");
      await sleep(1);
      appendFileSync(effectsFile, `${context.idempotencyKey}\n`);
      onPhase?.("after");
      await sleep(2);
      return { ok: true };
    },
  );
  return tools;
}

const State = Annotation.Root({ done: Annotation<number>() });

interface Builder {
  addNode(name: string, fn: unknown): Builder;
  addEdge(from: string, to: string): Builder;
  compile(options: { checkpointer: unknown }): GovernedGraph;
}

export function crashGraph(runtime: GovernedRuntime): GovernedGraph {
  let builder = new StateGraph(State) as unknown as Builder;
  for (let n = 0; n < NODES; n++) {
    builder = builder.addNode(
      `n${n}`,
      governedNode(async (state: { done?: number }, ctx) => {
        const line = (c: number) => ({ line: `n${n}.${c}` });
        if (n % 2 === 0) {
          for (let c = 0; c < CALLS; c++) await ctx.call("fs.append", line(c));
        } else {
          // Calls under way together: their ledger writes share commits (group commit), so a
          // kill also lands while one commit holds several calls' rows. Every call is waited
          // for before the node fails (not `Promise.all`): a call left running would still hold
          // its lease when the run is resumed at once.
          const settled = await Promise.allSettled(
            Array.from({ length: CALLS }, (_, c) => ctx.call("fs.append", line(c))),
          );
          for (const result of settled) if (result.status === "rejected") throw result.reason;
        }
        return { done: (state.done ?? 0) + 1 };
      }),
    );
  }
  builder = builder.addEdge(START, "n0");
  for (let n = 1; n < NODES; n++) builder = builder.addEdge(`n${n - 1}`, `n${n}`);
  return builder.addEdge(`n${NODES - 1}`, END).compile({ checkpointer: runtime.checkpointer });
}

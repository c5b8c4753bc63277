import type { BaseCheckpointSaver } from "../../../src/checkpoint/index.js";
import { Annotation, END, START, StateGraph } from "../../../src/index.js";

/** Records one execution of a task (a committed side effect). */
export type EffectCounter = (taskKey: string) => Promise<void>;

export const CrashState = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  total: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

const CHAIN_BEFORE = ["a0", "a1", "a2", "a3", "a4", "a5"];
const PARALLEL = ["p0", "p1", "p2"];
const CHAIN_AFTER = ["b0", "b1", "b2", "b3", "b4", "b5"];

/** Every node of the crash graph. */
export const CRASH_NODES = [...CHAIN_BEFORE, ...PARALLEL, "join", ...CHAIN_AFTER];

/**
 * The key a node counts its effect under: its name and the engine's deterministic task id (the
 * same when a task is run again after a crash), which LangGraph.js and Keel hand the node in
 * `configurable.__pregel_task_id`.
 */
export function taskKey(node: string, taskId: string): string {
  return `${node}@${taskId}`;
}

/**
 * A chain of six nodes, a three-way parallel step and its join, and another chain of six. Each
 * node counts its effect under its task id, waits a little (so kills land inside steps as well as
 * between them, and the parallel tasks finish at different times), and appends its name.
 */
export function buildCrashGraph(saver: BaseCheckpointSaver, count: EffectCounter) {
  const node =
    (name: string, pause: number) =>
    async (_state: unknown, config: { configurable?: Record<string, unknown> }) => {
      const taskId = config.configurable?.__pregel_task_id;
      if (typeof taskId !== "string") throw new Error("the node got no task id");
      await count(taskKey(name, taskId));
      await new Promise((resolve) => setTimeout(resolve, pause));
      return { log: [name], total: 1 };
    };
  let builder = new StateGraph(CrashState) as unknown as {
    addNode(name: string, fn: unknown): typeof builder;
    addEdge(from: string | string[], to: string): typeof builder;
    compile(options: { checkpointer: BaseCheckpointSaver }): {
      invoke(input: unknown, config: unknown): Promise<unknown>;
    };
  };
  CRASH_NODES.forEach((name, index) => {
    // The parallel tasks finish far apart, so kills often land after some of them finished.
    const pause = PARALLEL.includes(name) ? 1 + 6 * PARALLEL.indexOf(name) : 1 + (index % 3);
    builder = builder.addNode(name, node(name, pause));
  });
  builder = builder.addEdge(START, "a0");
  for (const chain of [CHAIN_BEFORE, CHAIN_AFTER]) {
    for (let i = 1; i < chain.length; i++)
      builder = builder.addEdge(chain[i - 1] as string, chain[i] as string);
  }
  for (const name of PARALLEL) builder = builder.addEdge("a5", name);
  builder = builder.addEdge(PARALLEL, "join");
  builder = builder.addEdge("join", "b0");
  builder = builder.addEdge("b5", END);
  return builder.compile({ checkpointer: saver });
}

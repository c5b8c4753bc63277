import type { BaseCheckpointSaver } from "../../../src/checkpoint/index.js";
import { Annotation, END, interrupt, Send, START, StateGraph } from "../../../src/index.js";

/** Records one execution of a task (a committed side effect). */
export type EffectCounter = (taskKey: string) => Promise<void>;

/** Called at each kill point inside a node (the worker may die there). */
export type KillPoint = (kind: "node-start" | "node-effect") => void;

export const CrashState = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  total: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
  item: Annotation<number>({ reducer: (_a, b) => b, default: () => -1 }),
  approved: Annotation<string>({ reducer: (_a, b) => b, default: () => "" }),
});

const CHAIN_BEFORE = ["a0", "a1", "a2", "a3", "a4", "a5"];
const PARALLEL = ["p0", "p1", "p2"];
const CHAIN_AFTER = ["b0", "b1", "b2", "b3"];
/** How many `Send`s `fan` makes to `sent`. */
export const SENDS = 3;

/** Every node of the crash graph (each runs at least once; `sent` once per Send). */
export const CRASH_NODES = [
  ...CHAIN_BEFORE,
  ...PARALLEL,
  "join",
  "fan",
  "sent",
  "approve",
  ...CHAIN_AFTER,
];

/**
 * The key a node counts its effect under: its name and the engine's deterministic task id (the
 * same when a task is run again after a crash), which LangGraph.js and Keel hand the node in
 * `configurable.__pregel_task_id`.
 */
export function taskKey(node: string, taskId: string): string {
  return `${node}@${taskId}`;
}

/**
 * A chain of six nodes, a three-way parallel step and its join, a `Send` fan-out to three tasks
 * of one node, a node that pauses at `interrupt()` until resumed, and another chain. Each log
 * entry is long, so the log is stored as a blob (with append deltas) after a few steps. Each node
 * counts its effect under its task id and waits a little (the parallel and sent tasks finish at
 * different times, so kills land after some of a step's tasks finished).
 */
export function buildCrashGraph(
  saver: BaseCheckpointSaver,
  count: EffectCounter,
  killPoint: KillPoint = () => {},
) {
  const entry = (name: string) => `${name}: an entry long enough that the log becomes a blob`;
  const effect = async (name: string, config: { configurable?: Record<string, unknown> }) => {
    const taskId = config.configurable?.__pregel_task_id;
    if (typeof taskId !== "string") throw new Error("the node got no task id");
    killPoint("node-start");
    await count(taskKey(name, taskId));
    killPoint("node-effect");
  };
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const node =
    (name: string, ms: number) =>
    async (_state: unknown, config: { configurable?: Record<string, unknown> }) => {
      await effect(name, config);
      await pause(ms);
      return { log: [entry(name)], total: 1 };
    };
  let builder = new StateGraph(CrashState) as unknown as {
    addNode(name: string, fn: unknown): typeof builder;
    addEdge(from: string | string[], to: string): typeof builder;
    addConditionalEdges(from: string, fn: unknown): typeof builder;
    compile(options: { checkpointer: BaseCheckpointSaver }): {
      invoke(input: unknown, config: unknown): Promise<unknown>;
    };
  };
  for (const [index, name] of [...CHAIN_BEFORE, "join", "fan", ...CHAIN_AFTER].entries())
    builder = builder.addNode(name, node(name, 1 + (index % 3)));
  // The parallel tasks finish far apart, so kills often land after some of them finished.
  for (const [index, name] of PARALLEL.entries())
    builder = builder.addNode(name, node(name, 1 + 6 * index));
  builder = builder.addNode(
    "sent",
    async (state: { item: number }, config: { configurable?: Record<string, unknown> }) => {
      await effect("sent", config);
      await pause(1 + 5 * state.item);
      return { log: [entry(`item ${state.item}`)], total: 1 };
    },
  );
  // The effect is counted once the answer is there: a paused task runs again on resume.
  builder = builder.addNode(
    "approve",
    async (_state: unknown, config: { configurable?: Record<string, unknown> }) => {
      const answer = interrupt("approve?") as string;
      await effect("approve", config);
      return { log: [entry("approve")], approved: answer, total: 1 };
    },
  );
  builder = builder.addEdge(START, "a0");
  for (let i = 1; i < CHAIN_BEFORE.length; i++)
    builder = builder.addEdge(CHAIN_BEFORE[i - 1] as string, CHAIN_BEFORE[i] as string);
  for (const name of PARALLEL) builder = builder.addEdge("a5", name);
  builder = builder.addEdge(PARALLEL, "join");
  builder = builder.addEdge("join", "fan");
  builder = builder.addConditionalEdges("fan", () =>
    Array.from({ length: SENDS }, (_, item) => new Send("sent", { item })),
  );
  builder = builder.addEdge("sent", "approve");
  builder = builder.addEdge("approve", "b0");
  for (let i = 1; i < CHAIN_AFTER.length; i++)
    builder = builder.addEdge(CHAIN_AFTER[i - 1] as string, CHAIN_AFTER[i] as string);
  builder = builder.addEdge(CHAIN_AFTER.at(-1) as string, END);
  return builder.compile({ checkpointer: saver });
}

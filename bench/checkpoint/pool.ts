/**
 * A Postgres database under load: 32 threads stepping at once (each runs the 100-node chain,
 * `sync` durability), one process, one saver per library on one pool. Prints steps per second
 * (all threads) and the 99th percentile of a step's latency (the time from one node of a thread
 * to its next: the step's checkpoint commit and the engine's work), Keel against LangGraph.js's
 * Postgres saver at the same concurrency, alternating round by round.
 */
import {
  END as LG_END,
  START as LG_START,
  Annotation as LgAnnotation,
  StateGraph as LgStateGraph,
} from "@langchain/langgraph";
import { Annotation, END, START, StateGraph } from "../../src/index.js";
import { median } from "../lib/report.js";
import { CHAIN_LENGTH, type Invokable } from "./graphs.js";

export const CONCURRENT_THREADS = 32;

// biome-ignore lint/suspicious/noExplicitAny: each library's own saver and builder types.
type AnySaver = any;

/** Per thread, when its last node ran (ms); latencies of every step of a round. */
interface Clock {
  last: Map<string, number>;
  latencies: number[];
}

function timedNode(clock: Clock) {
  return (s: { count: number }, config: { configurable?: { thread_id?: string } }) => {
    const thread = config.configurable?.thread_id ?? "";
    const now = performance.now();
    const last = clock.last.get(thread);
    if (last !== undefined) clock.latencies.push(now - last);
    clock.last.set(thread, now);
    return { count: s.count + 1 };
  };
}

function build(library: "keel" | "langgraph", checkpointer: AnySaver, clock: Clock): Invokable {
  const keel = library === "keel";
  const State = keel
    ? Annotation.Root({ count: Annotation<number>() })
    : LgAnnotation.Root({ count: LgAnnotation<number>() });
  let builder = (
    keel ? new StateGraph(State as AnySaver) : new LgStateGraph(State as AnySaver)
  ) as AnySaver;
  const names = Array.from({ length: CHAIN_LENGTH }, (_, i) => `n${i}`);
  for (const name of names) builder = builder.addNode(name, timedNode(clock));
  builder = builder.addEdge(keel ? START : LG_START, names[0]);
  for (let i = 1; i < names.length; i++) builder = builder.addEdge(names[i - 1], names[i]);
  builder = builder.addEdge(names[names.length - 1], keel ? END : LG_END);
  return builder.compile({ checkpointer });
}

export interface PoolFigures {
  stepsPerSecond: number;
  p99Ms: number;
}

let round = 0;

/** One round: CONCURRENT_THREADS fresh threads run the chain at once. */
async function oneRound(library: "keel" | "langgraph", saver: AnySaver): Promise<PoolFigures> {
  const clock: Clock = { last: new Map(), latencies: [] };
  const graph = build(library, saver, clock);
  const id = ++round;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENT_THREADS }, (_, i) =>
      graph.invoke(
        { count: 0 },
        {
          configurable: { thread_id: `pool-${library}-${id}-${i}` },
          recursionLimit: 1000,
          durability: "sync",
        },
      ),
    ),
  );
  const seconds = (performance.now() - start) / 1000;
  const sorted = clock.latencies.sort((a, b) => a - b);
  return {
    stepsPerSecond: (CONCURRENT_THREADS * CHAIN_LENGTH) / seconds,
    p99Ms: sorted[Math.floor(sorted.length * 0.99)] ?? Number.NaN,
  };
}

/** Medians of `rounds` alternating rounds (after one warm-up round each). */
export async function poolUnderLoad(
  keelSaver: AnySaver,
  peerSaver: AnySaver,
  rounds: number,
): Promise<{ keel: PoolFigures; peer: PoolFigures }> {
  await oneRound("keel", keelSaver);
  await oneRound("langgraph", peerSaver);
  const keel: PoolFigures[] = [];
  const peer: PoolFigures[] = [];
  for (let i = 0; i < rounds; i++) {
    keel.push(await oneRound("keel", keelSaver));
    peer.push(await oneRound("langgraph", peerSaver));
  }
  const medians = (figures: PoolFigures[]): PoolFigures => ({
    stepsPerSecond: median(figures.map((f) => f.stepsPerSecond)),
    p99Ms: median(figures.map((f) => f.p99Ms)),
  });
  return { keel: medians(keel), peer: medians(peer) };
}

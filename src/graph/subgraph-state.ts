/**
 * A subgraph's own checkpoints read through its parent, as LangGraph.js does: a config whose
 * `checkpoint_ns` names a subgraph (`node:<task id>`, nested `a:<id>|b:<id>`) is answered by that
 * subgraph, and `getState(config, { subgraphs: true })` puts each paused subgraph's snapshot on
 * its task (`tasks[i].state`).
 */
import type { BaseCheckpointSaver, CheckpointTuple } from "../checkpoint/base/index.js";
import type { Replay } from "./pregel/loop.js";
import type { GraphSpec } from "./pregel/spec.js";
import type { RunConfig, StateSnapshot } from "./types.js";

/** What of a compiled graph reading subgraph state needs (the class, without importing it). */
export interface NamespacedGraph {
  readonly spec: GraphSpec;
  readonly checkpointer: BaseCheckpointSaver | undefined;
  readonly subgraphPersistence: boolean | undefined;
  stateAt(config: RunConfig, saver: BaseCheckpointSaver, subgraphs: boolean): Promise<unknown>;
}

function isNamespacedGraph(value: unknown): value is NamespacedGraph {
  return typeof (value as Partial<NamespacedGraph> | undefined)?.stateAt === "function";
}

/** The node name of one namespace segment (`node:<task id>`, or `node` for a persistent one). */
function nodeOf(segment: string): string {
  const colon = segment.indexOf(":");
  return colon === -1 ? segment : segment.slice(0, colon);
}

/**
 * The graph that owns checkpoint namespace `ns` under `root` (`root` itself for the root's own
 * namespace, or for a namespace no subgraph node matches: a graph invoked inside a node).
 */
export function graphAt<G extends NamespacedGraph>(root: G, ns: string | undefined): G {
  if (!ns) return root;
  let graph: NamespacedGraph = root;
  for (const segment of ns.split("|")) {
    const { spec } = graph;
    const node = spec.nodes[spec.nodeIndex.get(nodeOf(segment)) ?? -1];
    const subgraph = node?.subgraph ?? node?.invokes;
    if (!isNamespacedGraph(subgraph)) return root;
    graph = subgraph;
  }
  return graph as G;
}

/**
 * Gives each pending task of a subgraph node the config of the subgraph's own state (its
 * namespace on the same thread) or, with `subgraphs`, the subgraph's snapshot when it has one.
 */
export async function addSubgraphStates(
  spec: GraphSpec,
  snapshot: StateSnapshot,
  saver: BaseCheckpointSaver,
  subgraphs: boolean,
): Promise<void> {
  const configurable = snapshot.config.configurable ?? {};
  const ns = configurable.checkpoint_ns ?? "";
  for (const task of snapshot.tasks) {
    const subgraph = spec.nodes[spec.nodeIndex.get(task.name) ?? -1]?.subgraph;
    if (!isNamespacedGraph(subgraph) || subgraph.subgraphPersistence === false) continue;
    // `compile({ checkpointer: true })` keeps one namespace per node, not per task.
    const own = subgraph.subgraphPersistence === true ? task.name : `${task.name}:${task.id}`;
    const config: RunConfig = {
      configurable: { thread_id: configurable.thread_id, checkpoint_ns: ns ? `${ns}|${own}` : own },
    };
    task.state = config;
    if (!subgraphs) continue;
    const childSaver = subgraph.checkpointer ?? saver;
    if (await childSaver.getTuple(config))
      task.state = (await subgraph.stateAt(config, childSaver, true)) as StateSnapshot;
  }
}

/** True when `tuple` was saved after the point `replay` replays from, by an earlier run. */
export function savedAfter(tuple: CheckpointTuple, replay: Replay): boolean {
  const id = tuple.checkpoint.id;
  return id > replay.from && id < replay.started;
}

/** The newest checkpoint of `config`'s namespace saved before checkpoint id `before`. */
export async function lastBefore(
  saver: BaseCheckpointSaver,
  config: RunConfig,
  before: string,
): Promise<CheckpointTuple | undefined> {
  const options = { before: { configurable: { checkpoint_id: before } }, limit: 1 };
  for await (const tuple of saver.list(config, options)) return tuple;
  return undefined;
}

import type { StateChannel } from "../annotation.js";
import type {
  BranchDeclaration,
  GraphDeclaration,
  NodeAction,
  SubgraphLike,
} from "../builder/declarations.js";
import {
  BinaryOperatorAggregate,
  type Channel,
  JoinBarrier,
  SendQueue,
  TriggerChannel,
} from "../channels/index.js";
import { DeltaEngineChannel } from "../channels/public/delta.js";
import { BRANCH_PREFIX, END, JOIN_PREFIX, START, TASKS_CHANNEL } from "../constants.js";
import { messagesDeltaReducer, messagesStateReducer } from "../messages/messages-reducer.js";
import type { CachePolicy, RetryPolicy } from "../types.js";
import { type TimeoutPolicy, timeoutPolicyOf } from "./timeout.js";

/** What kind of channel an index is; the loop branches on it instead of on classes. */
export enum ChannelKind {
  State = 0,
  Trigger = 1,
  Join = 2,
  Sends = 3,
}

/** A conditional edge, with its path map turned into a lookup. */
export interface BranchSpec {
  path: BranchDeclaration["path"];
  pathMap: Record<string, string> | undefined;
}

/** A node as the loop sees it: everything precomputed at compile time. */
export interface NodeSpec {
  name: string;
  /** Position in name order, which is also the order tasks apply their writes in. */
  index: number;
  /** Position in the order nodes were added: the order `getState` lists tasks in. */
  order: number;
  action: NodeAction<never> | undefined;
  /**
   * What `this` is inside the node's function: `{ name }`, as LangGraph.js calls a node function
   * as a method of its runnable, whose `name` is the node's (an unbound class method reads it).
   */
  receiver?: { readonly name: string } | undefined;
  subgraph: SubgraphLike | undefined;
  /** The graph a function node invokes itself (`addNode(…, { subgraphs })`), for reading its state. */
  invokes?: SubgraphLike | undefined;
  /** True for `async function` nodes: they get AsyncLocalStorage for `interrupt()` in every run. */
  isAsync: boolean;
  retryPolicy: RetryPolicy | undefined;
  /** How long one attempt may take (`addNode(…, { timeout })`). */
  timeout: TimeoutPolicy | undefined;
  /** Reuse results for the same input (with `compile({ cache })`); `true` was normalised to `{}`. */
  cachePolicy: CachePolicy | undefined;
  /** Where the node's failures go (a node of this graph), if it has an error handler. */
  errorHandlerNode?: string | undefined;
  /** Runs only when no other task is due (`addNode(…, { defer: true })`). */
  defer?: boolean | undefined;
  /** Channels that make this node run (its trigger channel and its joins). */
  triggers: number[];
  /** Channel writes made every time this node finishes: `[channel, value]` (edges and joins). */
  edgeWrites: Array<[number, unknown]>;
  branches: BranchSpec[];
}

/** The compiled, immutable tables of a graph. One per compiled graph, shared by all its runs. */
export interface GraphSpec {
  stateKeys: string[];
  stateChannels: StateChannel[];
  /**
   * Per state key: true when `messagesStateReducer` (or `messagesDeltaReducer` in a
   * `DeltaChannel`) reduces it: its writes get message ids before they are saved.
   */
  messageKeys: boolean[];
  /** The state keys that are `DeltaChannel`s (usually none), for the savers' delta format. */
  deltaKeys: DeltaKey[];
  channelNames: string[];
  channelKinds: ChannelKind[];
  channelIndex: Map<string, number>;
  /** For trigger and join channels: the node they trigger; -1 otherwise. */
  channelTarget: number[];
  nodes: NodeSpec[];
  nodeIndex: Map<string, number>;
  /** START as a pseudo-node: its edges and branches run when input arrives. */
  start: Pick<NodeSpec, "edgeWrites" | "branches">;
  sendsChannel: number;
  /** True when a node is deferred: only then does preparing a step look for deferred nodes. */
  hasDeferred: boolean;
  /** Makes the channels of one run (state keys first, in schema order). */
  createChannels(): Channel[];
  /** An entrypoint's graph: its input goes straight to its node, START is not traced as a task. */
  functional?: boolean;
}

/** A `DeltaChannel` state key: its channel index and how often it is snapshotted. */
export interface DeltaKey {
  name: string;
  index: number;
  snapshotFrequency: number;
}

/** Turns a validated declaration into the loop's tables. */
export function buildSpec(graph: GraphDeclaration): GraphSpec {
  const stateKeys = Object.keys(graph.schema);
  const stateChannels = stateKeys.map((key) => graph.schema[key]!);
  const channelNames = [...stateKeys];
  const channelKinds: ChannelKind[] = stateKeys.map(() => ChannelKind.State);
  const channelTarget: number[] = stateKeys.map(() => -1);
  const factories: Array<() => Channel> = stateKeys.map(
    (key, i) => () => stateChannels[i]!.createChannel(key),
  );

  const declared = [...graph.nodes.keys()];
  // Declaration order by name, looked up per node: indexOf here made compile quadratic.
  const orderOf = new Map(declared.map((name, i) => [name, i]));
  const names = [...declared].sort();
  const nodeIndex = new Map(names.map((name, i) => [name, i]));
  const addChannel = (
    name: string,
    kind: ChannelKind,
    target: number,
    factory: () => Channel,
  ): number => {
    channelNames.push(name);
    channelKinds.push(kind);
    channelTarget.push(target);
    factories.push(factory);
    return channelNames.length - 1;
  };

  const nodes: NodeSpec[] = names.map((name, index) => {
    const decl = graph.nodes.get(name)!;
    const trigger = addChannel(
      `${BRANCH_PREFIX}${name}`,
      ChannelKind.Trigger,
      index,
      () => new TriggerChannel(),
    );
    return {
      name,
      index,
      order: orderOf.get(name)!,
      action: decl.action,
      receiver: { name },
      subgraph: decl.subgraph,
      invokes: decl.invokes,
      isAsync: decl.action !== undefined && decl.action.constructor.name === "AsyncFunction",
      retryPolicy: decl.retryPolicy,
      timeout: timeoutPolicyOf(decl.timeout),
      cachePolicy:
        decl.cachePolicy === true ? {} : decl.cachePolicy === false ? undefined : decl.cachePolicy,
      errorHandlerNode: decl.errorHandlerNode,
      defer: decl.defer === true,
      triggers: [trigger],
      edgeWrites: [],
      branches: [],
    };
  });
  const sendsChannel = addChannel(TASKS_CHANNEL, ChannelKind.Sends, -1, () => new SendQueue());
  const channelIndex = new Map(channelNames.map((name, i) => [name, i]));
  const start: GraphSpec["start"] = { edgeWrites: [], branches: [] };
  const source = (name: string) => (name === START ? start : nodes[nodeIndex.get(name)!]!);

  for (const [from, to] of graph.edges) {
    if (to === END) continue;
    // The target's trigger channel, by node index: no channel-name string built per edge.
    source(from).edgeWrites.push([nodes[nodeIndex.get(to)!]!.triggers[0]!, null]);
  }
  for (const join of graph.joins) {
    if (join.target === END) continue;
    const target = nodeIndex.get(join.target)!;
    const sources = [...new Set(join.sources)];
    const channel = addChannel(
      `${JOIN_PREFIX}${sources.join("+")}:${join.target}`,
      ChannelKind.Join,
      target,
      () => new JoinBarrier(sources),
    );
    channelIndex.set(channelNames[channel]!, channel);
    nodes[target]!.triggers.push(channel);
    for (const name of sources) source(name).edgeWrites.push([channel, name]);
  }
  for (const branch of graph.branches) {
    source(branch.source).branches.push({ path: branch.path, pathMap: branch.pathMap });
  }

  const deltaKeys: DeltaKey[] = [];
  const messageKeys = stateKeys.map((key, index) => {
    const channel = stateChannels[index]!;
    // An uncalled `Annotation<T>` is a last-value key: never reduced.
    if (typeof channel === "function" || !channel.hasReducer) return false;
    const made = channel.createChannel(key);
    if (made instanceof DeltaEngineChannel) {
      deltaKeys.push({ name: key, index, snapshotFrequency: made.snapshotFrequency });
      return made.reducer === messagesDeltaReducer;
    }
    return made instanceof BinaryOperatorAggregate && made.operator === messagesStateReducer;
  });
  return {
    stateKeys,
    stateChannels,
    messageKeys,
    deltaKeys,
    channelNames,
    channelKinds,
    channelIndex,
    channelTarget,
    nodes,
    nodeIndex,
    start,
    sendsChannel,
    hasDeferred: nodes.some((node) => node.defer === true),
    createChannels: () => factories.map((make) => make()),
  };
}

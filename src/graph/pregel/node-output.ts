import { KeelError } from "../../core/index.js";
import type { Channel } from "../channels/index.js";
import { Command, isCommand } from "../command.js";
import { END } from "../constants.js";
import { InvalidUpdateError, NodeInterrupt } from "../errors.js";
import { isSend } from "../send.js";
import type { RunTrace } from "../tracing/index.js";
import type { RunConfig } from "../types.js";
import { type BranchSpec, ChannelKind, type GraphSpec } from "./spec.js";
import type { Task } from "./task.js";

/** What turning a node's result into writes needs from the run. */
export interface OutputContext {
  readonly spec: GraphSpec;
  readonly channels: Channel[];
  readonly config: RunConfig;
  /** The state at the start of the step (shared by all tasks of the step). */
  stateView(): Record<string, unknown>;
  /** The run's LangChain callback runs, when it was given callbacks. */
  readonly trace?: RunTrace | undefined;
}

/** Raised inside a subgraph when a node returns `Command({ graph: Command.PARENT })`. */
export class ParentCommand extends KeelError {
  constructor(readonly command: Command) {
    super(
      "INVALID_UPDATE",
      "A Command addressed to the parent graph was returned outside a subgraph.",
      {
        hint: "Command.PARENT only works in a graph that runs as a node of another graph.",
      },
    );
  }
}

/** True for a promise or any other thenable (a node or path may return either). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === "object") {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)
      ?.constructor?.name;
    return name ? `an instance of ${name}` : "an object";
  }
  return `${/^[aeiou]/.test(typeof value) ? "an" : "a"} ${typeof value}`;
}

/**
 * True for an object literal (or `Object.create(null)`), also from another realm: the only
 * updates whose keys are the state's. A Map, a class instance or a Date is not one.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null;
}

/** Writes a state update (`{ key: value }`) as `writer`, refusing anything the state cannot take. */
export function writeUpdate(
  ctx: OutputContext,
  task: Pick<Task, "writeChannels" | "writeValues">,
  writer: string,
  update: unknown,
): void {
  if (!isPlainObject(update)) {
    throw new InvalidUpdateError(
      `Node "${writer}" returned ${describe(update)}; a node must return a plain object of state updates, a Command, or nothing.`,
      {
        details: { node: writer, received: describe(update) },
        hint: `Return e.g. { ${ctx.spec.stateKeys[0] ?? "key"}: value }.`,
      },
    );
  }
  for (const key in update) {
    const value = (update as Record<string, unknown>)[key];
    if (value !== undefined) writeKey(ctx, task, writer, key, value);
  }
}

function writeKey(
  ctx: OutputContext,
  task: Pick<Task, "writeChannels" | "writeValues">,
  writer: string,
  key: string,
  value: unknown,
): void {
  const { channelIndex, channelKinds } = ctx.spec;
  const channel = channelIndex.get(key);
  if (channel === undefined || channelKinds[channel] !== ChannelKind.State) {
    throw new InvalidUpdateError(
      `Node "${writer}" returned key "${key}", which is not in the state.`,
      {
        details: { node: writer, key, stateKeys: ctx.spec.stateKeys },
        hint: `State keys are: ${ctx.spec.stateKeys.join(", ")}. Add "${key}" to Annotation.Root or stop returning it.`,
      },
    );
  }
  task.writeChannels.push(channel);
  task.writeValues.push(value);
}

/** True for a Command update given as `[key, value]` pairs (a key may repeat), as LangGraph.js takes it. */
function isUpdatePairs(update: unknown): update is Array<[string, unknown]> {
  return (
    Array.isArray(update) &&
    update.every((pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string")
  );
}

/** Writes a Command's update: an object of keys, or `[key, value]` pairs written in order. */
function writeCommandUpdate(ctx: OutputContext, task: Task, writer: string, update: unknown): void {
  if (!isUpdatePairs(update)) {
    writeUpdate(ctx, task, writer, update);
    return;
  }
  for (const [key, value] of update)
    if (value !== undefined) writeKey(ctx, task, writer, key, value);
}

/** Writes a route (node name, several, `END`, `Send`s) from `writer` to the next step. */
export function writeRoute(
  ctx: OutputContext,
  task: Task,
  writer: string,
  result: unknown,
  pathMap: Record<string, string> | undefined,
  what: string,
): void {
  const items = Array.isArray(result) ? result : [result];
  const { nodeIndex, nodes, sendsChannel } = ctx.spec;
  for (const item of items) {
    if (isSend(item)) {
      if (!nodeIndex.has(item.node)) {
        throw new InvalidUpdateError(
          `${what} of node "${writer}" sent to unknown node "${item.node}".`,
          {
            code: "UNKNOWN_GOTO_TARGET",
            details: { node: writer, target: item.node },
            hint: `Known nodes: ${[...nodeIndex.keys()].join(", ")}.`,
          },
        );
      }
      task.writeChannels.push(sendsChannel);
      const timeout = (item as { timeout?: unknown }).timeout;
      task.writeValues.push(
        timeout === undefined
          ? { node: item.node, args: item.args }
          : { node: item.node, args: item.args, timeout },
      );
      continue;
    }
    if (typeof item !== "string") {
      throw new InvalidUpdateError(
        `${what} of node "${writer}" returned ${describe(item)}; expected a node name, END or a Send.`,
        {
          code: "UNKNOWN_GOTO_TARGET",
          details: { node: writer },
        },
      );
    }
    const target = pathMap ? pathMap[item] : item;
    if (target === END) continue;
    const index = target === undefined ? undefined : nodeIndex.get(target);
    if (index === undefined) {
      throw new InvalidUpdateError(
        `${what} of node "${writer}" routed to "${item}", which is not a node${pathMap ? " of its path map" : ""}.`,
        {
          code: "UNKNOWN_GOTO_TARGET",
          details: { node: writer, target: item },
          hint: `Known nodes: ${[...nodeIndex.keys()].join(", ")} (or END).`,
        },
      );
    }
    task.writeChannels.push(nodes[index]!.triggers[0]!);
    task.writeValues.push(null);
  }
}

/** The state a conditional edge sees: the step's snapshot plus this task's own writes. */
function freshState(ctx: OutputContext, task: Task, writer: string): Record<string, unknown> {
  const view = ctx.stateView();
  const { stateKeys } = ctx.spec;
  let fresh: Record<string, unknown> | undefined;
  for (let i = 0; i < task.writeChannels.length; i += 1) {
    const channel = task.writeChannels[i]!;
    if (channel >= stateKeys.length) continue;
    fresh ??= { ...view };
    const key = stateKeys[channel]!;
    fresh[key] = ctx.channels[channel]!.fold(fresh[key], key in fresh, task.writeValues[i], writer);
  }
  return fresh ?? view;
}

/**
 * A `NodeInterrupt` thrown by a conditional edge still pauses the run (the node's task is
 * interrupted), but is most likely a mistake: LangGraph.js's warning, word for word.
 */
function warnIfNodeInterrupt(error: unknown): void {
  if (error instanceof NodeInterrupt)
    console.warn(
      "[WARN]: 'NodeInterrupt' thrown in conditional edge. This is likely a bug in your graph implementation.\n" +
        "NodeInterrupt should only be thrown inside a node, not in edge conditions.",
    );
}

function runBranches(
  ctx: OutputContext,
  task: Task,
  writer: string,
  branches: BranchSpec[],
  from: number,
): void | Promise<void> {
  const state = freshState(ctx, task, writer);
  for (let i = from; i < branches.length; i += 1) {
    const branch = branches[i]!;
    const trace = ctx.trace;
    let result: unknown;
    try {
      // Traced: a run of its own under the node's (LangGraph.js runs a path as a RunnableLambda).
      result = trace
        ? trace.chain(task.config ?? ctx.config, "RunnableLambda", state, (config) =>
            branch.path(state as never, config),
          )
        : branch.path(state as never, ctx.config);
    } catch (error) {
      warnIfNodeInterrupt(error);
      throw error;
    }
    if (isThenable(result)) {
      return Promise.resolve(result).then(
        (resolved) => {
          writeRoute(ctx, task, writer, resolved, branch.pathMap, "The conditional edge");
          return runBranches(ctx, task, writer, branches, i + 1);
        },
        (error: unknown) => {
          warnIfNodeInterrupt(error);
          throw error;
        },
      );
    }
    writeRoute(ctx, task, writer, result, branch.pathMap, "The conditional edge");
  }
}

/**
 * What a task that returned several updates reports as its update (`updates` stream, history):
 * one object of its writes, or, when it wrote a key more than once, one `{ key: value }` per
 * write in order, as LangGraph.js does.
 */
function combinedUpdate(spec: GraphSpec, task: Task): unknown {
  const { stateKeys } = spec;
  const combined: Record<string, unknown> = {};
  const each: Record<string, unknown>[] = [];
  let repeated = false;
  for (let i = 0; i < task.writeChannels.length; i += 1) {
    const key = stateKeys[task.writeChannels[i]!]!;
    if (Object.hasOwn(combined, key)) repeated = true;
    combined[key] = task.writeValues[i];
    each.push({ [key]: task.writeValues[i] });
  }
  return repeated ? each : combined;
}

/**
 * Turns what a node returned into the task's writes: its update, its static edges, its
 * `Command.goto` and the routes of its conditional edges. Returns a promise only when a
 * conditional edge is async.
 */
export function recordResult(
  ctx: OutputContext,
  task: Task,
  result: unknown,
): void | Promise<void> {
  const node = task.node;
  // A node returns an update, a Command, or an array holding at least one Command (its other
  // items are plain updates, as in LangGraph.js). Each item is its own write, so two values for
  // one last-value key conflict here exactly as from two nodes.
  const items = isCommand(result)
    ? [result]
    : Array.isArray(result) && result.some(isCommand)
      ? (result as unknown[])
      : undefined;
  let gotos: unknown[] | undefined;
  if (!items) {
    task.update = result;
    if (result !== undefined && result !== null) writeUpdate(ctx, task, node.name, result);
  } else {
    const updates: unknown[] = [];
    gotos = [];
    for (const item of items) {
      if (!isCommand(item)) {
        if (item === undefined || item === null) continue;
        writeUpdate(ctx, task, node.name, item);
        updates.push(item);
        continue;
      }
      if (item.graph === Command.PARENT) throw new ParentCommand(item);
      if (item.update !== undefined && item.update !== null) {
        writeCommandUpdate(ctx, task, node.name, item.update);
        updates.push(item.update);
      }
      gotos.push(...item.goto);
    }
    task.update =
      updates.length > 1 || isUpdatePairs(updates[0]) ? combinedUpdate(ctx.spec, task) : updates[0];
  }
  for (const [channel, value] of node.edgeWrites) {
    task.writeChannels.push(channel);
    task.writeValues.push(value);
  }
  if (gotos && gotos.length > 0)
    writeRoute(ctx, task, node.name, gotos, undefined, "The Command goto");
  if (node.branches.length > 0) return runBranches(ctx, task, node.name, node.branches, 0);
}

/** Routes of START's conditional edges for the input (run once per input). */
export function routeFromStart(ctx: OutputContext, task: Task): void | Promise<void> {
  const start = ctx.spec.start;
  for (const [channel, value] of start.edgeWrites) {
    task.writeChannels.push(channel);
    task.writeValues.push(value);
  }
  if (start.branches.length > 0) return runBranches(ctx, task, "__start__", start.branches, 0);
}

import { randomUUID } from "node:crypto";
import {
  type BaseCheckpointSaver,
  type Checkpoint,
  type CheckpointConfig,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  customNextVersion,
  isoNow,
  newCheckpointId,
} from "../../checkpoint/base/index.js";
import { KeelError } from "../../core/index.js";
import type { BaseChannel } from "../channels/public/base-channel.js";
import { DeltaChannel, DeltaSnapshot } from "../channels/public/delta.js";
import { isCommand } from "../command.js";
import { INTERRUPT, TASKS_CHANNEL } from "../constants.js";
import { GraphRecursionError, InvalidUpdateError } from "../errors.js";
import { defaultRetryOn, retryDelay, sleep } from "../pregel/execute.js";
import { RunTrace, wantsTrace } from "../tracing/index.js";
import type { RetryPolicy, RunConfig } from "../types.js";
import { PREGEL_SEND } from "./channel-write.js";
import type { PregelNode, PregelStep } from "./node.js";
import { chooseUpdateNode } from "./update-node.js";

type Values = Record<string, unknown>;
type Write = [string, unknown];
type Mode = "values" | "updates";

/** The run's own marker for its final output (never a stream mode). */
const OUTPUT = "__output__";

/** What `getState` returns for a {@link Pregel} graph. */
export interface PregelSnapshot {
  values: Values;
  next: string[];
  config: CheckpointConfig;
  metadata: CheckpointMetadata | undefined;
  createdAt: string | undefined;
  parentConfig: CheckpointConfig | undefined;
  tasks: Array<{ name: string; interrupts: never[] }>;
}

function pick(object: Values | undefined, key: string): Values {
  return object !== undefined && object[key] !== undefined ? { [key]: object[key] } : {};
}

/** What `new Pregel(...)` takes: LangGraph.js's low-level graph of channels and nodes. */
export interface PregelOptions {
  nodes: Record<string, PregelNode>;
  channels: Record<string, BaseChannel>;
  /** One channel (the input is its value) or several (the input is an object of them). */
  inputChannels: string | string[];
  /** One channel (`invoke` returns its value) or several (an object of those holding a value). */
  outputChannels: string | string[];
  /** What `values` chunks show (default: every channel). */
  streamChannels?: string | string[];
  streamMode?: Mode;
  checkpointer?: BaseCheckpointSaver;
  interruptBefore?: string[];
  interruptAfter?: string[];
  name?: string;
  debug?: boolean;
  /** Retries a node that throws (its whole chain of steps, its writes dropped), as a state graph's nodes. */
  retryPolicy?: RetryPolicy & { logWarning?: boolean };
}

/** Per-call options on top of the usual config. */
export interface PregelRunConfig extends RunConfig {
  outputKeys?: string | string[];
}

interface Run {
  channels: Record<string, BaseChannel>;
  versions: Record<string, number>;
  seen: Record<string, Record<string, number>>;
  step: number;
}

interface Task {
  name: string;
  node: PregelNode;
  input: unknown;
  writes: Write[];
}

/**
 * LangGraph.js's low-level `Pregel`: nodes subscribed to channels run in super-steps; a node runs
 * in the step after one of its trigger channels was updated, reads its channels, and writes
 * through its `Channel.writeTo` steps. The writes of a step are applied together at its end
 * (each channel's `update` gets them all), and channels nobody wrote see an empty update (so
 * ephemeral values and topics clear). It runs on its own small loop, apart from the state-graph
 * engine, so state graphs pay nothing for it.
 *
 * @example
 * const app = new Pregel({
 *   nodes: { one: Channel.subscribeTo("input").pipe((x: number) => x + 1).pipe(Channel.writeTo(["output"])) },
 *   channels: { input: new LastValue<number>(), output: new LastValue<number>() },
 *   inputChannels: "input",
 *   outputChannels: "output",
 * });
 * await app.invoke(2); // 3
 */
export class Pregel {
  readonly nodes: Record<string, PregelNode>;
  readonly channels: Record<string, BaseChannel>;
  readonly inputChannels: string | string[];
  readonly outputChannels: string | string[];
  readonly streamChannels: string | string[] | undefined;
  readonly streamMode: Mode;
  readonly checkpointer: BaseCheckpointSaver | undefined;
  readonly interruptBefore: string[];
  readonly interruptAfter: string[];
  readonly name: string | undefined;
  readonly retryPolicy: RetryPolicy | undefined;
  /** The checkpointer's own `getNextVersion`, when it overrides the default. */
  private readonly nextVersion: ((current: number | undefined) => number) | undefined;
  /** Marks it as a Runnable for LangChain's `RunnableEach` and pipes. */
  readonly lc_runnable = true;

  constructor(options: PregelOptions) {
    if (options?.nodes === undefined || options.channels === undefined) {
      throw new KeelError(
        "INVALID_GRAPH",
        "new Pregel() needs nodes, channels, inputChannels and outputChannels.",
        {
          hint: "Pass { nodes, channels, inputChannels, outputChannels }.",
        },
      );
    }
    this.nodes = options.nodes;
    this.channels = options.channels;
    this.inputChannels = options.inputChannels;
    this.outputChannels = options.outputChannels;
    this.streamChannels = options.streamChannels;
    this.streamMode = options.streamMode ?? "values";
    this.checkpointer = options.checkpointer;
    this.nextVersion = customNextVersion(options.checkpointer);
    this.interruptBefore = options.interruptBefore ?? [];
    this.interruptAfter = options.interruptAfter ?? [];
    this.name = options.name;
    this.retryPolicy = options.retryPolicy;
    this.validate();
  }

  /** The channels `values` chunks show, as given (default: every channel and the tasks channel). */
  get streamChannelsAsIs(): string | string[] {
    return this.streamChannels ?? [...Object.keys(this.channels), TASKS_CHANNEL];
  }

  /** {@link streamChannelsAsIs} as a list. */
  get streamChannelsList(): string[] {
    const s = this.streamChannelsAsIs;
    return Array.isArray(s) ? s : [s];
  }

  /** Runs to the end; returns the output channels (see {@link PregelOptions.outputChannels}). */
  async invoke(input: unknown, config: PregelRunConfig = {}): Promise<unknown> {
    let output: unknown;
    for await (const [kind, chunk] of this.run(input, config, new Set<Mode>())) {
      if (kind === INTERRUPT) return { [INTERRUPT]: [] };
      if (kind === OUTPUT) output = chunk;
    }
    return output;
  }

  /** The saver, and the checkpoint `config` names (its thread's latest without a `checkpoint_id`). */
  private async addressedTuple(
    config: PregelRunConfig,
    verb: string,
  ): Promise<{ saver: BaseCheckpointSaver; tuple: CheckpointTuple | undefined }> {
    const saver = this.checkpointer;
    if (!saver) {
      throw new KeelError("CHECKPOINTER_REQUIRED", `No checkpointer set: ${verb} needs one.`, {
        hint: "Give the Pregel graph a checkpointer.",
      });
    }
    const tuple = await saver.getTuple({
      configurable: {
        ...this.threadConfig(config).configurable,
        ...pick(config.configurable, "checkpoint_id"),
      },
    });
    return { saver, tuple };
  }

  /** The latest checkpoint of a thread: channel values, the nodes that would run next. */
  async getState(config: PregelRunConfig): Promise<PregelSnapshot> {
    const { tuple } = await this.addressedTuple(config, "getState");
    return this.snapshot(config, tuple);
  }

  /** The thread's checkpoints, newest first (`limit`, `before` and `filter` as `saver.list` takes them). */
  async *getStateHistory(
    config: PregelRunConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<PregelSnapshot> {
    const saver = this.checkpointer;
    if (!saver) {
      throw new KeelError(
        "CHECKPOINTER_REQUIRED",
        "No checkpointer set: getStateHistory needs one.",
        {
          hint: "Give the Pregel graph a checkpointer.",
        },
      );
    }
    // `before`, `filter` and `limit` as a state graph's history takes them.
    for await (const tuple of saver.list(this.threadConfig(config), options)) {
      yield await this.snapshot(config, tuple);
    }
  }

  private async snapshot(
    config: PregelRunConfig,
    tuple: CheckpointTuple | undefined,
  ): Promise<PregelSnapshot> {
    const { run } = await this.load(config, tuple);
    return {
      values: this.read(run, Object.keys(this.channels)) as Values,
      next: this.prepare(run).map((t) => t.name),
      config: tuple?.config ?? this.threadConfig(config),
      metadata: tuple?.metadata,
      createdAt: tuple?.checkpoint.ts,
      parentConfig: tuple?.parentConfig,
      tasks: this.prepare(run).map((t) => ({ name: t.name, interrupts: [] })),
    };
  }

  /** Streams `values` (the stream channels after each step that wrote one) or `updates`. */
  async stream(
    input: unknown,
    config: PregelRunConfig = {},
  ): Promise<AsyncIterableIterator<unknown>> {
    const modes = config.streamMode ?? this.streamMode;
    const list = (Array.isArray(modes) ? modes : [modes]) as Mode[];
    const tagged = Array.isArray(modes);
    const run = this.run(
      input,
      { ...config, outputKeys: config.outputKeys ?? this.streamChannelsAsIs },
      new Set(list),
    );
    async function* chunks(): AsyncGenerator<unknown> {
      for await (const [mode, chunk] of run) {
        if (mode === OUTPUT) continue;
        if (mode === INTERRUPT) {
          if (list.includes("updates") || list.includes("values"))
            yield tagged ? ["updates", { [INTERRUPT]: [] }] : { [INTERRUPT]: [] };
          continue;
        }
        yield tagged ? [mode, chunk] : chunk;
      }
    }
    return chunks();
  }

  /** One `invoke` per input, concurrently. */
  batch(inputs: unknown[], config?: PregelRunConfig | PregelRunConfig[]): Promise<unknown[]> {
    return Promise.all(
      inputs.map((input, i) => this.invoke(input, Array.isArray(config) ? config[i] : config)),
    );
  }

  toString(): string {
    return `Pregel(${this.name ?? Object.keys(this.nodes).join(", ")})`;
  }

  /**
   * Applies `values` to a thread's checkpoint (the latest, or `config`'s `checkpoint_id`) as if
   * node `asNode` had returned them: its `Channel.writeTo` writers run on them, the writes are
   * applied as a step's, and a new checkpoint (`source: "update"`) is saved after that one.
   * Without `asNode`, the node is chosen as LangGraph.js chooses it ({@link chooseUpdateNode}).
   *
   * @example
   * const next = await app.updateState({ configurable: { thread_id: "1" } }, 10);
   * await app.getState(next); // the values after the update
   */
  async updateState(
    config: PregelRunConfig,
    values: unknown,
    asNode?: string,
  ): Promise<CheckpointConfig> {
    const { saver, tuple } = await this.addressedTuple(config, "updateState");
    const { run, parent } = await this.load(config, tuple);
    const name = chooseUpdateNode(this.nodes, this.inputChannels, run.seen, asNode);
    const task: Task = { name, node: this.nodes[name]!, input: values, writes: [] };
    // Only the writers run (not the node's other steps), one after another as a sequence.
    const stepConfig = this.taskConfig(task, config);
    let value = values;
    for (const writer of task.node.writers) value = await writer.invoke(value, stepConfig);
    run.step = tuple ? run.step + 1 : 0;
    this.apply(run, task.writes, [], true);
    return this.save(saver, config, run, parent, {
      source: "update",
      step: run.step,
      parents: tuple?.metadata?.parents ?? {},
      writes: { [name]: values },
    });
  }

  /** Saves the run's channels as a checkpoint after `parent`; returns the saved config. */
  private async save(
    saver: BaseCheckpointSaver,
    config: PregelRunConfig,
    run: Run,
    parent: string | undefined,
    metadata: CheckpointMetadata,
  ): Promise<CheckpointConfig> {
    const checkpoint: Checkpoint = {
      v: 1,
      id: newCheckpointId(parent),
      ts: isoNow(),
      channel_values: {},
      channel_versions: { ...run.versions },
      versions_seen: Object.fromEntries(Object.entries(run.seen).map(([k, v]) => [k, { ...v }])),
    };
    // Only channels that were ever written carry a value: a saver stores values by version, so
    // a value without one (an empty Topic's []) would be in the checkpoint but not in the store.
    for (const [name, channel] of Object.entries(run.channels)) {
      if (run.versions[name] === undefined) continue;
      const value = savedValue(channel);
      if (value !== undefined) checkpoint.channel_values[name] = value;
    }
    const base = this.threadConfig(config);
    const saved = await saver.put(
      { configurable: { ...base.configurable, ...(parent ? { checkpoint_id: parent } : {}) } },
      checkpoint,
      metadata,
      { ...run.versions },
    );
    return saved.configurable?.checkpoint_id === undefined
      ? { configurable: { ...base.configurable, checkpoint_id: checkpoint.id } }
      : saved;
  }

  private validate(): void {
    const known = (name: string) => Object.hasOwn(this.channels, name);
    const problems: string[] = [];
    for (const [name, node] of Object.entries(this.nodes)) {
      for (const c of [
        ...node.triggers,
        ...(Array.isArray(node.channels) ? node.channels : [node.channels]),
      ])
        if (!known(c)) problems.push(`node "${name}" subscribes to unknown channel "${c}"`);
    }
    const inputs = Array.isArray(this.inputChannels) ? this.inputChannels : [this.inputChannels];
    for (const c of inputs) if (!known(c)) problems.push(`input channel "${c}" is not a channel`);
    for (const n of [...this.interruptBefore, ...this.interruptAfter])
      if (n !== "*" && !Object.hasOwn(this.nodes, n))
        problems.push(`interrupt node "${n}" is not a node`);
    if (problems.length > 0) {
      throw new KeelError("INVALID_GRAPH", `Invalid Pregel graph: ${problems.join("; ")}.`, {
        hint: "Declare every channel a node or the input uses in `channels`.",
        details: { problems },
      });
    }
  }

  private async load(
    config: PregelRunConfig,
    given?: CheckpointTuple,
  ): Promise<{ run: Run; parent?: string }> {
    // Step -2 so that the first input lands at -1, as LangGraph.js numbers it.
    const fresh: Run = { channels: {}, versions: {}, seen: {}, step: -2 };
    for (const [name, proto] of Object.entries(this.channels))
      fresh.channels[name] = proto.fromCheckpoint(undefined);
    if (!this.checkpointer) return { run: fresh };
    const tuple = given ?? (await this.checkpointer.getTuple(this.threadConfig(config)));
    if (!tuple) return { run: fresh };
    const cp = tuple.checkpoint;
    for (const [name, proto] of Object.entries(this.channels)) {
      fresh.channels[name] = Object.hasOwn(cp.channel_values, name)
        ? proto.fromCheckpoint(cp.channel_values[name] as never)
        : proto.fromCheckpoint(undefined);
    }
    fresh.versions = { ...cp.channel_versions };
    for (const [node, seen] of Object.entries(cp.versions_seen)) fresh.seen[node] = { ...seen };
    fresh.step = tuple.metadata?.step ?? -2;
    return { run: fresh, parent: cp.id };
  }

  private threadConfig(config: PregelRunConfig): CheckpointConfig {
    const threadId = config.configurable?.thread_id;
    if (typeof threadId !== "string" && typeof threadId !== "number") {
      throw new KeelError(
        "INVALID_ARGUMENT",
        "A Pregel graph with a checkpointer needs configurable.thread_id.",
        {
          hint: 'Pass { configurable: { thread_id: "…" } }.',
        },
      );
    }
    return { configurable: { thread_id: String(threadId), checkpoint_ns: "" } };
  }

  /**
   * The run, traced as LangGraph.js traces it when it has callbacks (or LangSmith tracing is on):
   * a chain run for the graph, one under it per task (see {@link execute}).
   */
  private async *run(
    input: unknown,
    config: PregelRunConfig,
    modes: Set<Mode>,
  ): AsyncGenerator<[string, unknown]> {
    const trace = wantsTrace(config.callbacks)
      ? await RunTrace.start(config, this.name ?? "LangGraph", input)
      : undefined;
    if (!trace) {
      yield* this.steps(input, config, modes, undefined);
      return;
    }
    let output: unknown;
    try {
      for await (const item of this.steps(input, trace.config, modes, trace)) {
        if (item[0] === OUTPUT) output = item[1];
        yield item;
      }
    } catch (error) {
      await trace.fail(error);
      throw error;
    }
    await trace.end(output);
  }

  private async *steps(
    input: unknown,
    config: PregelRunConfig,
    modes: Set<Mode>,
    trace: RunTrace | undefined,
  ): AsyncGenerator<[string, unknown]> {
    const outputKeys = config.outputKeys ?? this.outputChannels;
    const limit = config.recursionLimit ?? 25;
    if (
      isCommand(input) &&
      (input as { resume?: unknown }).resume !== undefined &&
      !this.checkpointer
    ) {
      throw new KeelError(
        "CHECKPOINTER_REQUIRED",
        "Cannot use Command(resume=...) without checkpointer.",
        {
          hint: "Give the Pregel graph a checkpointer to pause and resume it.",
        },
      );
    }
    const loaded = await this.load(config);
    const run = loaded.run;
    let parent = loaded.parent;
    const save = async (source: "input" | "loop", writes: Values | null) => {
      if (!this.checkpointer) return;
      const saved = await this.save(this.checkpointer, config, run, parent, {
        source,
        step: run.step,
        parents: {},
        writes,
      });
      parent = (saved.configurable?.checkpoint_id as string | undefined) ?? parent;
    };

    if (input !== null && input !== undefined && !isCommand(input)) {
      const writes = this.inputWrites(input);
      if (writes.length === 0) {
        throw new KeelError(
          "EMPTY_INPUT",
          "The Pregel graph received no input for its input channels.",
          {
            hint: `Pass a value for ${JSON.stringify(this.inputChannels)}.`,
          },
        );
      }
      run.step += 1;
      this.apply(run, writes, [], true);
      await save("input", { __input__: input });
    }
    // LangGraph.js's count: steps up to `limit` after the input may run, then the run stops.
    const stop = run.step + limit + 1;

    let first = true;
    for (;;) {
      const tasks = this.prepare(run);
      if (tasks.length === 0) break;
      if (
        !(first && isCommand(input)) &&
        this.matches(this.interruptBefore, tasks) &&
        !(first && input === null)
      ) {
        yield [INTERRUPT, null];
        return;
      }
      first = false;
      run.step += 1;
      for (const task of tasks) {
        const seen = run.seen[task.name] ?? {};
        run.seen[task.name] = seen;
        for (const t of task.node.triggers)
          if (run.versions[t] !== undefined) seen[t] = run.versions[t]!;
      }
      const finished: Task[] = [];
      const updates: Array<[string, unknown]> = [];
      await Promise.all(
        tasks.map(async (task) => {
          await this.execute(task, config, run.step, trace);
          finished.push(task);
          if (modes.has("updates")) {
            const chunk = this.updateChunk(task, outputKeys);
            if (chunk !== undefined) updates.push(["updates", chunk]);
          }
        }),
      );
      for (const u of updates) yield u;
      const allWrites = tasks.flatMap((t) => t.writes);
      this.apply(
        run,
        allWrites,
        tasks.map((t) => t.node),
        true,
      );
      await save(
        "loop",
        Object.fromEntries(tasks.map((t) => [t.name, Object.fromEntries(t.writes)])),
      );
      if (modes.has("values") && this.wrote(allWrites, outputKeys))
        yield ["values", this.read(run, outputKeys)];
      if (this.matches(this.interruptAfter, tasks)) {
        yield [INTERRUPT, null];
        return;
      }
      if (run.step + 1 > stop) throw new GraphRecursionError(limit);
    }
    yield [OUTPUT, this.read(run, outputKeys)];
  }

  private matches(names: string[], tasks: Task[]): boolean {
    return names.length > 0 && tasks.some((t) => names.includes("*") || names.includes(t.name));
  }

  private inputWrites(input: unknown): Write[] {
    if (!Array.isArray(this.inputChannels)) return [[this.inputChannels, input]];
    if (typeof input !== "object" || input === null) {
      throw new InvalidUpdateError(
        `Expected an object input for channels ${this.inputChannels.join(", ")}.`,
      );
    }
    return this.inputChannels
      .filter((c) => Object.hasOwn(input, c))
      .map((c) => [c, (input as Values)[c]] as Write);
  }

  /** Nodes whose trigger channels were updated since they last ran, in name order. */
  private prepare(run: Run): Task[] {
    const tasks: Task[] = [];
    for (const name of Object.keys(this.nodes).sort()) {
      const node = this.nodes[name]!;
      const seen = run.seen[name] ?? {};
      const triggered = node.triggers.some(
        (t) => run.channels[t]!.isAvailable() && (run.versions[t] ?? 0) > (seen[t] ?? 0),
      );
      if (!triggered) continue;
      let input: unknown;
      if (Array.isArray(node.channels)) {
        const values: Values = {};
        for (const c of node.channels)
          if (run.channels[c]!.isAvailable()) values[c] = run.channels[c]!.get();
        input = values;
      } else {
        if (!run.channels[node.channels]!.isAvailable()) continue;
        input = run.channels[node.channels]!.get();
      }
      tasks.push({ name, node, input, writes: [] });
    }
    return tasks;
  }

  /**
   * Runs a task's node (its steps in order), with retries. Traced: each attempt is a chain run
   * named after the node, under the graph's (tags `graph:step:<n>`, LangGraph.js's `langgraph_*`
   * metadata), and the node's steps run with its callbacks, in LangChain's context.
   */
  private async execute(
    task: Task,
    config: PregelRunConfig,
    step: number,
    trace: RunTrace | undefined,
  ): Promise<void> {
    const stepConfig = this.taskConfig(task, config);
    const policy = this.retryPolicy;
    const runSteps = async (stepConfig: RunConfig): Promise<unknown> => {
      let value = task.input;
      for (const nodeStep of task.node.steps) value = await runStep(nodeStep, value, stepConfig);
      return value;
    };
    for (let attempt = 1; ; attempt += 1) {
      try {
        if (trace) await this.traced(task, stepConfig, step, trace, runSteps);
        else await runSteps(stepConfig);
        return;
      } catch (error) {
        if (
          !policy ||
          attempt >= (policy.maxAttempts ?? 3) ||
          !(policy.retryOn ?? defaultRetryOn)(error) ||
          config.signal?.aborted
        )
          throw error;
        task.writes.length = 0;
        await sleep(retryDelay(policy, attempt), config.signal);
      }
    }
  }

  /** The config a task's steps run with: the run's, with the task's write sink and node name. */
  private taskConfig(task: Task, config: PregelRunConfig): RunConfig {
    const send = (writes: Write[]) => {
      for (const [channel, value] of writes) {
        if (!Object.hasOwn(this.channels, channel)) {
          throw new InvalidUpdateError(
            `Node "${task.name}" wrote to unknown channel "${channel}".`,
            {
              details: { node: task.name, channel },
            },
          );
        }
        task.writes.push([channel, value]);
      }
    };
    const { outputKeys: _o, streamMode: _s, ...rest } = config;
    return {
      ...rest,
      configurable: { ...config.configurable, [PREGEL_SEND]: send },
      metadata: { ...(config as { metadata?: Values }).metadata, langgraph_node: task.name },
    };
  }

  private async traced(
    task: Task,
    stepConfig: RunConfig,
    step: number,
    trace: RunTrace,
    runSteps: (config: RunConfig) => Promise<unknown>,
  ): Promise<void> {
    const metadata: Values = {
      ...(stepConfig.metadata as Values),
      langgraph_step: step,
      langgraph_triggers: task.node.triggers,
      langgraph_path: ["__pregel_pull", task.name],
      langgraph_checkpoint_ns: `${task.name}:${randomUUID()}`,
    };
    const run = await trace.startChain(
      { callbacks: trace.taskCallbacks(step), metadata },
      task.name,
      task.input,
    );
    const config = { ...stepConfig, callbacks: run.callbacks, metadata };
    let output: unknown;
    try {
      output = await trace.scope(config, () => runSteps(config));
    } catch (error) {
      await run.fail(error);
      throw error;
    }
    await run.end(output);
  }

  /** Applies a step's writes channel by channel; bumps versions of channels that changed. */
  private apply(run: Run, writes: Write[], ran: PregelNode[], bumpStep: boolean): void {
    // Every channel a step changes gets the same next version, one past the newest of all (as
    // LangGraph.js numbers them), so which node saw the newest version is well defined.
    const versions = Object.values(run.versions);
    const newest = versions.length > 0 ? Math.max(...versions) : undefined;
    const next = this.nextVersion ? this.nextVersion(newest) : (newest ?? 0) + 1;
    for (const node of ran)
      for (const t of node.triggers) if (run.channels[t]!.consume()) run.versions[t] = next;
    const grouped = new Map<string, unknown[]>();
    for (const [channel, value] of writes) {
      const list = grouped.get(channel);
      if (list) list.push(value);
      else grouped.set(channel, [value]);
    }
    for (const [channel, values] of grouped) {
      if (run.channels[channel]!.update(values)) run.versions[channel] = next;
    }
    if (!bumpStep) return;
    for (const [name, channel] of Object.entries(run.channels)) {
      if (!grouped.has(name) && channel.update([])) run.versions[name] = next;
    }
  }

  private wrote(writes: Write[], keys: string | string[]): boolean {
    return writes.some(([c]) => (Array.isArray(keys) ? keys.includes(c) : c === keys));
  }

  private read(run: Run, keys: string | string[]): unknown {
    if (!Array.isArray(keys)) {
      const channel = run.channels[keys];
      return channel?.isAvailable() ? channel.get() : undefined;
    }
    const out: Values = {};
    for (const key of keys) {
      const channel = run.channels[key];
      if (channel?.isAvailable()) out[key] = channel.get();
    }
    return out;
  }

  private updateChunk(task: Task, keys: string | string[]): Values | undefined {
    if (!Array.isArray(keys)) {
      const values = task.writes.filter(([c]) => c === keys).map(([, v]) => v);
      if (values.length === 0) return undefined;
      return { [task.name]: values.length === 1 ? values[0] : values };
    }
    const own = task.writes.filter(([c]) => keys.includes(c));
    if (own.length === 0 && task.writes.length > 0) return undefined;
    return { [task.name]: Object.fromEntries(own) };
  }
}

async function runStep(step: PregelStep, input: unknown, config: unknown): Promise<unknown> {
  if (typeof step === "function") {
    const out = await (step as (input: unknown, config: unknown) => unknown)(input, config);
    // A function may hand back a Runnable to run on the same input (as LangChain's lambdas do).
    if (
      typeof out === "object" &&
      out !== null &&
      typeof (out as { invoke?: unknown }).invoke === "function" &&
      (out as { lc_runnable?: unknown }).lc_runnable === true
    ) {
      return (out as { invoke(i: unknown, c: unknown): unknown }).invoke(input, config);
    }
    return out;
  }
  return step.invoke(input, config);
}

/**
 * What a checkpoint stores for a channel. A `DeltaChannel` checkpoints nothing (LangGraph.js
 * rebuilds it from a thread's saved writes); this loop saves no pending writes, so it stores the
 * value, as a `DeltaSnapshot`.
 */
function savedValue(channel: BaseChannel): unknown {
  if (!(channel instanceof DeltaChannel)) return channel.checkpoint();
  return channel.isAvailable() ? new DeltaSnapshot(channel.get()) : undefined;
}

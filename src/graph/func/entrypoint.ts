import type {
  BaseCache,
  BaseCheckpointSaver,
  BaseStore,
  CheckpointConfig,
  CheckpointListOptions,
} from "../../checkpoint/base/index.js";
import { KeelError } from "../../core/index.js";
import { Annotation } from "../annotation.js";
import { StateGraph } from "../builder/state-graph.js";
import { type Command, isCommand } from "../command.js";
import { type CompiledStateGraph, runConfig } from "../compiled-graph.js";
import { END, INTERRUPT, START } from "../constants.js";
import { currentScope } from "../interrupt.js";
import type { NodeTimeout } from "../pregel/timeout.js";
import type { RunConfig, StateSnapshot, StreamMode } from "../types.js";
import { type FunctionalRun, refuseGenerator, withFunctionalRun } from "./task.js";

/** The channel holding what the entrypoint saved last time (same name as LangGraph.js's). */
export const PREVIOUS = "__previous__";
const INPUT = "__entry_input__";
const RETURN = "__return__";
/** Marks a task result sent through the custom stream, turned into an `updates` chunk. */
const TASK_UPDATE = Symbol("keel.taskUpdate");
const FINAL = Symbol.for("keel.entrypoint.final");

/** `entrypoint({ name, checkpointer, store, cache }, fn)`. */
export interface EntrypointOptions {
  name: string;
  /** Needed for `interrupt()`, `getPreviousState()` and the thread methods. */
  checkpointer?: BaseCheckpointSaver | undefined;
  store?: BaseStore | undefined;
  /** Where tasks with a `cachePolicy` keep their results. */
  cache?: BaseCache | undefined;
  /** How long one run of the entrypoint's function may take (ms or a `TimeoutPolicy`). */
  timeout?: NodeTimeout | undefined;
}

/** `entrypoint.final({ value, save })`: returns `value`, keeps `save` for the next run. */
export interface EntrypointFinal<Value, Save> {
  readonly [FINAL]: true;
  value: Value;
  save: Save;
}

function isFinal(value: unknown): value is EntrypointFinal<unknown, unknown> {
  return typeof value === "object" && value !== null && FINAL in value;
}

type State = Record<string, unknown>;

/**
 * A workflow written as one function (LangGraph.js's functional API): `fn(input, config)` runs
 * as the graph's only node; the `task()`s it awaits are saved when it pauses on `interrupt()`, so
 * a resumed run replays their results instead of running them again. What it returns is the
 * result of `invoke`, and (with a checkpointer) `getPreviousState()` on the thread's next run.
 *
 * @example
 * const graph = entrypoint({ name: "review", checkpointer: new MemorySaver() }, async (draft: string) => {
 *   const answer = interrupt({ draft });
 *   return { draft, approved: answer === "yes" };
 * });
 * await graph.invoke("text", { configurable: { thread_id: "t1" } });
 * await graph.invoke(new Command({ resume: "yes" }), { configurable: { thread_id: "t1" } });
 */
function entrypointImpl<Input, Output>(
  optionsOrName: string | EntrypointOptions,
  fn: (input: Input, config: RunConfig) => Output | Promise<Output>,
): EntrypointGraph<Input, Output> {
  refuseGenerator(fn, "entrypoints");
  const options: EntrypointOptions =
    typeof optionsOrName === "string" ? { name: optionsOrName } : optionsOrName;
  return new EntrypointGraph(options, fn as (input: unknown, config: RunConfig) => unknown);
}

export const entrypoint = Object.assign(entrypointImpl, {
  /** Returns `value` from the run and saves `save` as the thread's previous state. */
  final<Value, Save>({ value, save }: { value: Value; save: Save }): EntrypointFinal<Value, Save> {
    return { [FINAL]: true, value, save };
  },
});

/** What `entrypoint()` returns: `invoke`, `stream` and the thread methods of a compiled graph. */
export class EntrypointGraph<Input = unknown, Output = unknown> {
  readonly name: string;
  readonly checkpointer: BaseCheckpointSaver | undefined;
  private readonly cache: BaseCache | undefined;
  private readonly graph: CompiledStateGraph<State, State>;

  constructor(options: EntrypointOptions, fn: (input: unknown, config: RunConfig) => unknown) {
    this.name = options.name;
    this.checkpointer = options.checkpointer;
    this.cache = options.cache;
    const cache = options.cache;
    const body = async (state: State, config: RunConfig): Promise<State> => {
      const scope = currentScope();
      const memo = scope?.memo ?? {};
      if (scope) {
        scope.memo = memo;
        scope.taskInput = { value: state[INPUT] };
      }
      const writer = config.writer;
      const run: FunctionalRun = {
        memo,
        report: (name, value) => writer?.({ [TASK_UPDATE]: { [name]: value } }),
        cache,
        signal: config.signal,
        previous: state[PREVIOUS],
        path: "",
        calls: 0,
      };
      const result = await withFunctionalRun(run, () => fn(state[INPUT], config));
      return isFinal(result)
        ? { [RETURN]: result.value, [PREVIOUS]: result.save }
        : { [RETURN]: result, [PREVIOUS]: result };
    };
    const schema = Annotation.Root({
      [INPUT]: Annotation<unknown>(),
      [RETURN]: Annotation<unknown>(),
      [PREVIOUS]: Annotation<unknown>(),
    });
    this.graph = new StateGraph(schema)
      .addNode(this.name, body, options.timeout === undefined ? {} : { timeout: options.timeout })
      .addEdge(START, this.name)
      .addEdge(this.name, END)
      .compile({
        checkpointer: options.checkpointer,
        store: options.store,
        name: this.name,
      }) as unknown as CompiledStateGraph<State, State>;
    this.graph.spec.functional = true;
  }

  /** Runs the function; returns what it returned, or `{ __interrupt__ }` when it paused. */
  async invoke(input: Input | Command | null, config: RunConfig = {}): Promise<Output> {
    const state = await this.graph.invoke(this.wrap(input) as State | Command | null, config);
    if (Object.hasOwn(state, INTERRUPT)) return { [INTERRUPT]: state[INTERRUPT] } as Output;
    return state[RETURN] as Output;
  }

  /**
   * Streams the run: `"updates"` (default) gives `{ task: result }` as each task finishes, then
   * `{ name: result }`; `"values"` the result; `"custom"` what `config.writer` sent.
   */
  async stream(
    input: Input | Command | null,
    config: RunConfig = {},
  ): Promise<AsyncIterableIterator<unknown>> {
    // Inside a node (a call without a config inherits the node's), as LangGraph.js: the stream
    // defaults to `values`, and what the function writes goes on to the caller's custom stream.
    config = runConfig(config);
    const nested = config.configurable?.__pregel_task_id !== undefined;
    const requested = config.streamMode ?? (nested ? "values" : "updates");
    const modes: StreamMode[] = Array.isArray(requested) ? requested : [requested];
    const tagged = Array.isArray(requested);
    const inner = new Set<StreamMode>(modes);
    inner.add("custom");
    if (inner.has("values")) inner.add("updates");
    const source = await this.graph.stream(this.wrap(input) as State | Command | null, {
      ...config,
      streamMode: [...inner],
    });
    const forward = modes.includes("custom") ? undefined : config.writer;
    return mapStream(source, modes, tagged, this.name, forward);
  }

  async getState(config: RunConfig): Promise<StateSnapshot<Output>> {
    return returnView(await this.graph.getState(config));
  }

  async *getStateHistory(
    config: RunConfig,
    options?: CheckpointListOptions,
  ): AsyncGenerator<StateSnapshot<Output>> {
    for await (const snapshot of this.graph.getStateHistory(config, options))
      yield returnView(snapshot);
  }

  /** Replaces what `getPreviousState()` returns on the thread's next run. */
  updateState(config: RunConfig, values: unknown, asNode?: string): Promise<CheckpointConfig> {
    return this.graph.updateState(config, { [PREVIOUS]: values }, asNode ?? this.name);
  }

  /** Drops the cached results of the tasks this entrypoint ran with a `cachePolicy`. */
  async clearCache(): Promise<void> {
    await this.cache?.clear();
  }

  private wrap(input: unknown): unknown {
    if (isCommand(input) || input === null) return input;
    if (input === undefined) {
      throw new KeelError("EMPTY_INPUT", "The entrypoint received no input.", {
        hint: "Pass an input (any value), or a Command({ resume }) to continue a paused thread.",
      });
    }
    return { [INPUT]: input };
  }
}

function returnView<Output>(snapshot: StateSnapshot<State>): StateSnapshot<Output> {
  const values = (snapshot.values[RETURN] ?? {}) as Output;
  return { ...snapshot, values };
}

async function* mapStream(
  source: AsyncIterable<unknown>,
  modes: StreamMode[],
  tagged: boolean,
  name: string,
  forward?: (chunk: unknown) => void,
): AsyncIterableIterator<unknown> {
  const wants = new Set(modes);
  const out = (mode: StreamMode, chunk: unknown) => (tagged ? [mode, chunk] : chunk);
  let returned = false;
  for await (const item of source) {
    const [mode, chunk] = item as [StreamMode, unknown];
    if (mode === "custom") {
      const update = (chunk as { [TASK_UPDATE]?: unknown } | null)?.[TASK_UPDATE];
      if (update !== undefined) {
        if (wants.has("updates")) yield out("updates", update);
      } else if (wants.has("custom")) yield out("custom", chunk);
      else forward?.(chunk);
    } else if (mode === "updates") {
      const record = chunk as State;
      returned = Object.hasOwn(record, name);
      if (!wants.has("updates")) continue;
      if (returned) yield out("updates", { [name]: (record[name] as State)[RETURN] });
      else if (Object.hasOwn(record, INTERRUPT)) yield out("updates", record);
    } else if (mode === "values") {
      const record = chunk as State;
      if (Object.hasOwn(record, INTERRUPT)) yield out("values", record);
      else if (returned) yield out("values", record[RETURN]);
    } else yield out(mode, chunk);
  }
}

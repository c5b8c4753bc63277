import type * as LcManager from "@langchain/core/callbacks/manager";
import type {
  CallbackManager,
  CallbackManagerForChainRun,
  Callbacks,
} from "@langchain/core/callbacks/manager";
import type { SerializedNotImplemented } from "@langchain/core/load/serializable";
import type * as LcSingletons from "@langchain/core/singletons";
import { loadOptionalPeer, preloadOptionalPeer } from "../../core/index.js";
import type { RunConfig } from "../types.js";
import { tracerMetadata } from "./metadata.js";

const MANAGER = "@langchain/core/callbacks/manager";
const SINGLETONS = "@langchain/core/singletons";

/** What LangChain's tracers record as the runnable of a run (LangGraph.js's is its toJSON()). */
function serialized(name: string): SerializedNotImplemented {
  return { lc: 1, type: "not_implemented", id: ["keel", "graph", name] };
}

/** A chain run started by `RunTrace.startChain`. */
export interface ChainRun {
  /** The callbacks of what runs inside it (undefined when no handler listens). */
  readonly callbacks: CallbackManager | undefined;
  end(output: unknown): Promise<void>;
  fail(error: unknown): Promise<void>;
}

/** Marks a handler Keel adds for itself (`streamMode: "messages"`): it does not make a run traced. */
export const KEEL_HANDLER = Symbol.for("keel.internalHandler");

function isCallerHandler(handler: unknown): boolean {
  return (handler as { [KEEL_HANDLER]?: boolean } | null)?.[KEEL_HANDLER] !== true;
}

/**
 * True when a run was given LangChain callbacks of the caller's (a list or a `CallbackManager`
 * with a handler other than Keel's own messages-stream handler).
 */
export function hasCallbacks(callbacks: Callbacks | undefined): boolean {
  if (callbacks === undefined || callbacks === null) return false;
  if (Array.isArray(callbacks)) return callbacks.some(isCallerHandler);
  return callbacks.handlers.some(isCallerHandler);
}

/** The switches with which LangChain traces every run to LangSmith (or logs it), callbacks or not. */
const TRACING_ENV = [
  "LANGSMITH_TRACING_V2",
  "LANGCHAIN_TRACING_V2",
  "LANGSMITH_TRACING",
  "LANGCHAIN_TRACING",
  "LANGCHAIN_VERBOSE",
];

/**
 * True when the environment turns LangChain's tracing on (`LANGSMITH_TRACING=true`, …): LangChain
 * then adds its LangSmith tracer to every run it starts, so a graph run is traced without
 * callbacks, as in LangGraph.js. Read at each run, as LangChain does (under a microsecond).
 */
export function tracingFromEnv(): boolean {
  const env = process.env;
  for (const key of TRACING_ENV) if (env[key] === "true") return true;
  return false;
}

/** True when a run with these callbacks is traced: the caller's callbacks, or the environment's. */
export function wantsTrace(callbacks: Callbacks | undefined): boolean {
  return hasCallbacks(callbacks) || tracingFromEnv();
}

/** LangChain's `_coerceToDict`: a plain object as is, anything else as `{ [key]: value }`. */
function toDict(value: unknown, key: string): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : { [key]: value };
}

interface LangChain {
  CallbackManager: typeof LcManager.CallbackManager;
  storage: typeof LcSingletons.AsyncLocalStorageProviderSingleton;
}

let langChain: LangChain | undefined;

/**
 * `@langchain/core`'s callback manager and context storage, loaded natively the first time a run
 * has callbacks; its global AsyncLocalStorage is set up as LangGraph.js's entry point does, so a
 * model a node calls without passing its config still finds the node's run.
 */
async function loadLangChain(): Promise<LangChain> {
  if (langChain) return langChain;
  await preloadOptionalPeer(MANAGER);
  await preloadOptionalPeer(SINGLETONS);
  const { CallbackManager } = loadOptionalPeer<typeof LcManager>(MANAGER);
  const { AsyncLocalStorageProviderSingleton: storage } =
    loadOptionalPeer<typeof LcSingletons>(SINGLETONS);
  const { AsyncLocalStorage } = await import("node:async_hooks");
  storage.initializeGlobalInstance(new AsyncLocalStorage());
  langChain = { CallbackManager, storage };
  return langChain;
}

/**
 * The LangChain callback runs of one graph run, as LangGraph.js reports them: the graph is a
 * chain run (named `runName`, else the graph's name), each task a chain run under it named after
 * its node (tags `graph:step:<n>`, metadata `langgraph_node`, `langgraph_step`, …), each
 * conditional edge a `RunnableLambda` run under its node. Made only for runs given callbacks, so a
 * run without them never loads `@langchain/core`.
 *
 * @example
 * const trace = await RunTrace.start(config, "LangGraph", input); // undefined without callbacks
 */
export class RunTrace {
  private constructor(
    private readonly lc: LangChain,
    private readonly root: CallbackManagerForChainRun | undefined,
    /** The config the graph's steps run with: the run's, with LangGraph.js's trace metadata. */
    readonly config: RunConfig,
  ) {}

  /** Starts the graph's run when `config` has callbacks (or tracing is on); undefined otherwise. */
  static async start(
    config: RunConfig,
    name: string,
    input: unknown,
  ): Promise<RunTrace | undefined> {
    if (!wantsTrace(config.callbacks)) return undefined;
    const lc = await loadLangChain();
    const { runId, runName, ...rest } = config;
    const metadata = withConfigurableIds(config, {
      ls_integration: "langgraph",
      ...config.metadata,
    });
    const tracer = tracerMetadata(config);
    const manager = lc.CallbackManager.configure(
      config.callbacks,
      undefined,
      config.tags,
      undefined,
      metadata,
      undefined,
      tracer ? { tracerInheritableMetadata: tracer } : undefined,
    );
    const root = await manager?.handleChainStart(
      serialized(name),
      toDict(input, "input"),
      runId,
      undefined,
      undefined,
      undefined,
      runName ?? name,
    );
    return new RunTrace(lc, root, { ...rest, metadata });
  }

  /** The callbacks a task of step `step` runs under (a child of the graph's run). */
  taskCallbacks(step: number): CallbackManager | undefined {
    return this.root?.getChild(`graph:step:${step}`);
  }

  /** The graph's run ended with `output` (its state). */
  async end(output: unknown): Promise<void> {
    await this.root?.handleChainEnd(toDict(output, "output"));
  }

  /** The graph's run failed. */
  async fail(error: unknown): Promise<void> {
    await this.root?.handleChainError(error);
  }

  /**
   * Starts a chain run named `name` under `config`'s callbacks, tags and metadata (a task, or
   * the START pseudo-task): `callbacks` is what runs inside it are started under.
   */
  async startChain(config: RunConfig, name: string, input: unknown): Promise<ChainRun> {
    const manager = this.lc.CallbackManager.configure(
      config.callbacks,
      undefined,
      config.tags,
      undefined,
      config.metadata,
    );
    const run = await manager?.handleChainStart(
      serialized(name),
      toDict(input, "input"),
      undefined,
      undefined,
      undefined,
      undefined,
      name,
    );
    return {
      callbacks: run?.getChild(),
      end: async (output) => {
        await run?.handleChainEnd(toDict(output, "output"));
      },
      fail: async (error) => {
        await run?.handleChainError(error);
      },
    };
  }

  /**
   * Runs `fn` as a chain run named `name` (a conditional edge's `RunnableLambda`): `fn` gets
   * `config` with the run's child callbacks, inside LangChain's context storage.
   */
  async chain<T>(
    config: RunConfig,
    name: string,
    input: unknown,
    fn: (config: RunConfig) => T | PromiseLike<T>,
  ): Promise<T> {
    const run = await this.startChain(config, name, input);
    const child: RunConfig = { ...config, callbacks: run.callbacks };
    let output: T;
    try {
      output = await this.scope(child, () => fn(child));
    } catch (error) {
      await run.fail(error);
      throw error;
    }
    await run.end(output);
    return output;
  }

  /** Runs `fn` with `config` as LangChain's current config (what `ensureConfig` finds). */
  scope<T>(config: RunConfig, fn: () => T): T {
    return this.lc.storage.runWithConfig(config as never, fn);
  }
}

/** The ids LangGraph.js copies from `configurable` into the metadata of every run. */
const PROPAGATED = [
  "thread_id",
  "checkpoint_id",
  "checkpoint_ns",
  "task_id",
  "run_id",
  "assistant_id",
  "graph_id",
] as const;

function withConfigurableIds(
  config: RunConfig,
  metadata: Record<string, unknown>,
): Record<string, unknown> {
  const configurable = config.configurable as Record<string, unknown> | undefined;
  if (!configurable) return metadata;
  for (const key of PROPAGATED) {
    if (key in metadata) continue;
    const value = configurable[key];
    if (value !== undefined) metadata[key] = value;
  }
  return metadata;
}

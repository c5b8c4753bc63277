import { AsyncLocalStorage } from "node:async_hooks";
import type { BaseCache } from "../../checkpoint/base/index.js";
import { KeelError } from "../../core/index.js";
import { isGraphInterrupt } from "../errors.js";
import { currentScope, type InterruptScope, interruptId, withAsyncScope } from "../interrupt.js";
import { defaultRetryOn, retryDelay, sleep } from "../pregel/execute.js";
import { type NodeTimeout, runWithTimeout, timeoutPolicyOf } from "../pregel/timeout.js";
import type { CachePolicy, RetryPolicy } from "../types.js";

/** `task({ name, retry, cachePolicy }, fn)`. */
export interface TaskOptions {
  name: string;
  /** Retries the task's function as a node's `retryPolicy` would. */
  retry?: RetryPolicy & { logWarning?: boolean };
  /** Reuses results across runs and threads (needs `entrypoint({ cache })`). */
  cachePolicy?: CachePolicy;
  /** How long one attempt may take (ms or a `TimeoutPolicy`); then `NodeTimeoutError`. */
  timeout?: NodeTimeout;
}

/**
 * What the running entrypoint hands the tasks it calls: where finished results go, the stream a
 * result is reported on, and the call path that names each call deterministically.
 */
export interface FunctionalRun {
  /** Results by call path, restored when a paused entrypoint resumes. */
  memo: Record<string, unknown>;
  /** Reports a finished task as an `updates` chunk (a no-op unless the run streams). */
  report: (name: string, value: unknown) => void;
  cache: BaseCache | undefined;
  signal: AbortSignal | undefined;
  /** What the entrypoint saved last time on this thread (`getPreviousState()`). */
  previous: unknown;
  /** This call's path ("" in the entrypoint) and how many tasks it called so far. */
  path: string;
  calls: number;
}

const runs = new AsyncLocalStorage<FunctionalRun>();

/** Runs `fn` as the body of an entrypoint (or of a task), with `run` visible to `task()` calls. */
export function withFunctionalRun<T>(run: FunctionalRun, fn: () => T): T {
  return runs.run(run, fn);
}

/**
 * The value the entrypoint returned (or `entrypoint.final`'s `save`) the last time it ran on this
 * thread; undefined on a new thread or without a checkpointer. Call it inside an entrypoint.
 *
 * @example
 * const counter = entrypoint({ name: "counter", checkpointer }, async (n: number) => {
 *   return (getPreviousState<number>() ?? 0) + n;
 * });
 */
export function getPreviousState<State>(): State {
  const run = runs.getStore();
  if (!run) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      "getPreviousState() was called outside an entrypoint, so there is no previous state to read.",
      { hint: "Call it inside the function given to entrypoint()." },
    );
  }
  return run.previous as State;
}

/** Refuses generator functions, as LangGraph.js does (a stream is written with `config.writer`). */
export function refuseGenerator(fn: unknown, what: "entrypoints" | "tasks"): void {
  const tag = typeof fn === "function" ? fn.constructor?.name : undefined;
  if (tag === "GeneratorFunction" || tag === "AsyncGeneratorFunction") {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `Generators are disallowed as ${what}. For streaming responses, use config.write.`,
      { hint: "Return a value, and send intermediate chunks with config.writer(chunk)." },
    );
  }
}

/**
 * A unit of work of the functional API: call it inside an `entrypoint` and await its result. A
 * finished task's result is saved with the entrypoint's checkpoint when the entrypoint pauses, so
 * a resumed entrypoint gets it again instead of running the task twice.
 *
 * @example
 * const double = task("double", (x: number) => 2 * x);
 * const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async (x: number) => {
 *   const y = await double(x);
 *   return interrupt(`ok with ${y}?`);
 * });
 */
export function task<Args extends unknown[], Output>(
  optionsOrName: string | TaskOptions,
  fn: (...args: Args) => Output | Promise<Output>,
): (...args: Args) => Promise<Output> {
  refuseGenerator(fn, "tasks");
  const options: TaskOptions =
    typeof optionsOrName === "string" ? { name: optionsOrName } : optionsOrName;
  const { name } = options;
  return (...args: Args): Promise<Output> => {
    const run = runs.getStore();
    if (!run) {
      // Outside an entrypoint a task is an ordinary function call, as in LangGraph.js.
      return Promise.resolve().then(() => fn(...args));
    }
    const path = `${run.path}${run.path ? "/" : ""}${name}:${run.calls++}`;
    if (Object.hasOwn(run.memo, path)) return Promise.resolve(run.memo[path] as Output);
    const child: FunctionalRun = { ...run, path, calls: 0 };
    const parent = currentScope();
    const run_ = () => callTask(options, child, args, fn);
    // Traced as a run of its own under the graph's, beside the entrypoint's, as in LangGraph.js.
    const sibling = parent?.traceSibling;
    const call = sibling ? () => sibling(name, args, run_) : run_;
    const running = parent ? withAsyncScope(taskScope(parent, run.memo, path, args), call) : call();
    return running.then((value) => {
      run.memo[path] = value;
      // The entrypoint's node scope carries the memo through an interrupt (see InterruptScope).
      const scope = currentScope();
      if (scope) scope.memo = run.memo;
      run.report(name, value);
      return value;
    });
  };
}

/** Where a task call's resume values are kept in the memo (beside results, never a call path). */
const RESUMES = "\u0000resumes:";

/**
 * A task's own interrupt scope, as in LangGraph.js where each task has its own resume values:
 * its `interrupt()` calls are counted apart from the entrypoint's (which may skip a finished task
 * and so call interrupt() fewer times on a later run); a new resume value is the entrypoint's.
 */
function taskScope(
  parent: InterruptScope,
  memo: Record<string, unknown>,
  path: string,
  args: unknown[],
): InterruptScope {
  const key = `${RESUMES}${path}`;
  const saved = memo[key];
  const resumes: unknown[] = Array.isArray(saved) ? saved : [];
  memo[key] = resumes;
  parent.memo = memo;
  return {
    interruptIdFor: (index) => interruptId(`${parent.interruptIdFor(0)}/${path}`, index),
    resumes,
    get fresh() {
      return parent.fresh;
    },
    set fresh(value) {
      parent.fresh = value;
    },
    calls: 0,
    taskInput: { value: args },
    traceSibling: parent.traceSibling,
  };
}

async function callTask<Args extends unknown[], Output>(
  options: TaskOptions,
  run: FunctionalRun,
  args: Args,
  fn: (...args: Args) => Output | Promise<Output>,
): Promise<Output> {
  const cached = options.cachePolicy && run.cache ? cacheKey(options, args) : undefined;
  if (cached && run.cache) {
    const [hit] = await run.cache.get([cached]);
    if (hit) return hit.value as Output;
  }
  const policy = options.retry;
  const timeout = timeoutPolicyOf(options.timeout);
  for (let attempt = 1; ; attempt += 1) {
    try {
      const value = (await (timeout
        ? runWithTimeout(options.name, timeout, () => withFunctionalRun(run, () => fn(...args)))
        : withFunctionalRun(run, () => fn(...args)))) as Output;
      if (cached && run.cache) {
        const ttl = options.cachePolicy?.ttl;
        await run.cache.set([
          ttl === undefined ? { key: cached, value } : { key: cached, value, ttl },
        ]);
      }
      return value;
    } catch (error) {
      if (
        isGraphInterrupt(error) ||
        !policy ||
        attempt >= (policy.maxAttempts ?? 3) ||
        !(policy.retryOn ?? defaultRetryOn)(error) ||
        run.signal?.aborted
      )
        throw error;
      await sleep(retryDelay(policy, attempt), run.signal);
    }
  }
}

/** The cache namespace of a task (what `clearCache()` drops). */
export const TASK_CACHE_NS = "__pregel_task";

function cacheKey(options: TaskOptions, args: unknown[]): [string[], string] {
  const key = options.cachePolicy?.keyFunc?.(args) ?? JSON.stringify(args);
  return [[TASK_CACHE_NS, options.name], key];
}

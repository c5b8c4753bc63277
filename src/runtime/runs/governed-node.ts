import { isKeelError, toKeelError } from "../../core/index.js";
import { isGraphInterrupt, type RunConfig } from "../../graph/index.js";
import type { ErrorDetail } from "../contracts/primitives.js";
import type { RetryPolicy } from "../contracts/task.js";
import { planRetry } from "../policy/retry.js";
import { NodeContext } from "./node-context.js";
import { runContextOf, taskIdentityOf } from "./run-context.js";

/** How a governed node retries (the seed's RetryPolicy) and how many attempts it gets. */
export interface GovernedNodeOptions {
  retry?: RetryPolicy;
  /** Attempts in total, the first included (default 1, or 3 when a retry policy is given). */
  maxAttempts?: number;
}

const NO_RETRY: RetryPolicy = {
  strategy: "none",
  base_delay_ms: 0,
  max_delay_ms: 0,
  jitter: false,
};

/** Codes that retrying cannot fix: a person, a rule or the request must change first. */
const FINAL = new Set([
  "APPROVAL_DENIED",
  "APPROVAL_EXPIRED",
  "GATE_BLOCKED",
  "CAPABILITY_MISSING",
  "TOOL_FORBIDDEN",
  "TOOL_NOT_FOUND",
  "TOOL_INPUT_INVALID",
  "TOOL_OUTPUT_INVALID",
  "IDEMPOTENCY_CONFLICT",
  "TOOL_CALL_UNKNOWN",
  "REPLAY_MISSING_CALL",
  "REPLAY_DIVERGED",
  "REPLAY_FAIL_LOUD",
  "INVALID_ARGUMENT",
]);

/**
 * Wraps a node function so that it runs as a governed step: the step is recorded (the seed's
 * Step: input, attempt, status, output, error), its tool calls go through the gates and the
 * ledger (`ctx.call`), failures retry per the seed's RetryPolicy with `next_wake_time` recorded,
 * and a gate or an operator pauses the run. Add it to a StateGraph like any node and start the
 * graph with `GovernedRuntime.start`.
 *
 * @example
 * const graph = new StateGraph(State)
 *   .addNode("refund", governedNode(async (state, ctx) => ({
 *     receipt: await ctx.call("payments.refund", { order: state.order, amount: state.amount }),
 *   })))
 *   .addEdge(START, "refund").compile({ checkpointer: saver });
 */
export function governedNode<State, Update>(
  fn: (state: State, ctx: NodeContext) => Update | Promise<Update>,
  options: GovernedNodeOptions = {},
): (state: State, config?: RunConfig) => Promise<Update> {
  const retry = options.retry ?? NO_RETRY;
  const maxAttempts = options.maxAttempts ?? (options.retry ? 3 : 1);
  return async (state, config) => {
    const run = runContextOf(config);
    const { node, taskKey } = taskIdentityOf(config);
    const enter = () =>
      run.steps.enter({
        runId: run.grant.runId,
        traceId: run.grant.traceId,
        taskKey,
        name: node,
        input: state,
        retryPolicy: retry,
        maxAttempts,
      });
    let step = await enter();
    if (step.status === "pending" && step.next_wake_at !== null) {
      // A retry scheduled before a crash: wait out what is left of its delay.
      await sleep(Number(step.next_wake_at) - run.clock.now());
      step = await enter();
    }
    for (;;) {
      const ctx = new NodeContext(run, step);
      try {
        const output = await fn(state, ctx);
        if (ctx.step.status === "running") await run.steps.succeed(ctx.step, output);
        return output;
      } catch (error) {
        if (isGraphInterrupt(error)) throw error;
        const current = ctx.step;
        const detail = errorDetail(error);
        const plan = retryable(error)
          ? planRetry({
              policy: JSON.parse(current.retry_policy_json) as RetryPolicy,
              attempt: Number(current.attempt),
              maxAttempts: Number(current.max_attempts),
              clock: run.clock,
              random: run.random,
            })
          : undefined;
        if (!plan?.retry || current.status !== "running") {
          if (current.status === "running" || current.status === "paused")
            await run.steps.fail(current, detail);
          throw error;
        }
        const pending = await run.steps.scheduleRetry(current, plan, detail);
        await sleep(plan.delayMs);
        step = await run.steps.enter({
          runId: pending.run_id,
          traceId: pending.trace_id,
          taskKey: pending.task_key,
          name: pending.name,
          input: state,
          retryPolicy: retry,
          maxAttempts,
        });
      }
    }
  };
}

function retryable(error: unknown): boolean {
  if (!isKeelError(error)) return true;
  if (FINAL.has(error.code)) return false;
  if (error.code === "TOOL_CALL_FAILED") {
    const detail = (error.details as { error?: { retryable?: boolean } } | undefined)?.error;
    return detail?.retryable !== false;
  }
  return false;
}

/** A thrown error as the seed's ErrorDetail. */
export function errorDetail(error: unknown): ErrorDetail {
  const keel = toKeelError(error);
  return {
    code: keel.code,
    message: keel.message,
    retryable: retryable(error),
    details: (keel.details as Record<string, unknown> | undefined) ?? {},
  };
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

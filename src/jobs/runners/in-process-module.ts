import { pathToFileURL } from "node:url";
import { loadGovernedApp } from "../../runtime/index.js";
import {
  type InProcessOutcome,
  type InProcessRunnerOptions,
  jobInput,
  jobThreadId,
  notEnded,
  reportOf,
  runFailed,
} from "./in-process-shared.js";
import type { RunnerJob } from "./runner.js";

/**
 * A job whose action is a `keelApp` module (a graph and its tools, see `GovernedApp`): started
 * with the whole job as its input and the module recorded (`app`), so operators' tools can
 * continue it too; a take-over recovers it from its checkpoint, or reads the final state of a run
 * that had ended.
 */
export async function runModuleJob(
  input: RunnerJob,
  options: InProcessRunnerOptions,
  modulePath: string,
): Promise<InProcessOutcome> {
  const { job, ctx } = input;
  const app = pathToFileURL(modulePath).href;
  const { runtime, graph } = await loadGovernedApp(app, ctx.store);
  const threadId = jobThreadId(job.id);
  const given = jobInput(job, input.jobFileText);
  const [latest] = await runtime.runs.list({ threadId, limit: 1 });
  if (latest?.status === "succeeded") {
    const tuple = await runtime.checkpointer.getTuple({ configurable: { thread_id: threadId } });
    return reportOf(
      ctx,
      job,
      (tuple?.checkpoint.channel_values ?? {}) as Record<string, unknown>,
      given,
    );
  }
  if (latest?.status === "failed" || latest?.status === "canceled") return runFailed(latest);
  if (latest?.status === "paused") return notEnded({ run: latest, waitingFor: [] });
  const result = latest
    ? await runtime.recover(latest.id, graph)
    : await runtime.start({
        graph,
        input: given,
        threadId,
        app,
        graphId: job.actionId,
        autonomy: options.autonomy ?? "A2",
        ...(options.capabilities !== undefined ? { capabilities: options.capabilities } : {}),
      });
  if (result.run.status !== "succeeded") return notEnded(result);
  return reportOf(ctx, job, (result.result ?? {}) as Record<string, unknown>, given);
}

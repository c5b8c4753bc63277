import { readFileSync } from "node:fs";
import { validateDocument } from "../../ir/index.js";
import {
  continueGovernedDocument,
  type DocumentRunResult,
  GovernedRuntime,
  loadDocumentTools,
  loadRunDocument,
  startGovernedDocument,
} from "../../runtime/index.js";
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
 * A job whose action is an IR document (`implementation.kind: "ir"`): a governed document run
 * on `job:<id>` with the job as its input, cut to the fields the document declares; a take-over
 * continues the run (`continueGovernedDocument`: recovery from the last checkpoint) or reads the
 * final state of a run that had ended.
 */
export async function runDocumentJob(
  input: RunnerJob,
  options: InProcessRunnerOptions,
  path: string,
): Promise<InProcessOutcome> {
  const { job, ctx } = input;
  const threadId = jobThreadId(job.id);
  const store = ctx.store;
  const probe = new GovernedRuntime({ store, tools: await loadDocumentTools([]) });
  const [latest] = await probe.runs.list({ threadId, limit: 1 });
  const given = declaredInput(path, jobInput(job, input.jobFileText));
  if (latest?.status === "succeeded") {
    // The run ended but its worker died before recording: its final state is the report.
    const loaded = await loadRunDocument(store, latest.id);
    const snapshot = (await loaded.compiled.graph.getState({
      configurable: { thread_id: threadId },
    })) as { values?: Record<string, unknown> };
    return reportOf(ctx, job, snapshot.values ?? {}, given);
  }
  if (latest?.status === "failed" || latest?.status === "canceled") return runFailed(latest);
  const result: DocumentRunResult = latest
    ? await continueGovernedDocument(store, latest.id)
    : await startGovernedDocument(
        store,
        { path },
        {
          input: given,
          threadId,
          ...(options.autonomy !== undefined ? { autonomy: options.autonomy } : {}),
          ...(options.capabilities !== undefined ? { capabilities: options.capabilities } : {}),
        },
      );
  if (result.run.status !== "succeeded") return notEnded(result);
  return reportOf(ctx, job, result.out, given);
}

/** The job's input cut to the fields the document declares (all of them with a state class). */
function declaredInput(path: string, full: Record<string, unknown>): Record<string, unknown> {
  let parsed: ReturnType<typeof validateDocument>;
  try {
    parsed = validateDocument(readFileSync(path, "utf8"));
  } catch {
    return full; // unreadable: the run's start reports why
  }
  if (!parsed.ok || parsed.document.state_class) return full;
  const declared = new Set(Object.keys(parsed.document.state_schema ?? {}));
  return Object.fromEntries(Object.entries(full).filter(([key]) => declared.has(key)));
}

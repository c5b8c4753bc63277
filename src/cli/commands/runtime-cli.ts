import { readFile } from "node:fs/promises";
import { KeelError } from "../../core/index.js";
import { IrValidationError } from "../../ir/index.js";
import {
  type Approval,
  type AuditEvent,
  AuditWriter,
  type AutonomyLevel,
  AutonomyLevel as AutonomySchema,
  type Continuation,
  continueGovernedRun,
  loadGovernedApp,
  loadGrant,
  loadRunDocument,
  runtimeDb,
} from "../../runtime/index.js";
import type { Store } from "../../store/index.js";
import type { OutputOptions } from "../output.js";
import { openCliStore, openReadCliStore, outputOptions, type StoreCliOptions } from "../scope.js";

/** Opens the store and hands the verb an audit writer on it; closes the store after. */
export async function withRuntimeStore<F extends StoreCliOptions>(
  flags: F,
  work: (store: Store, audit: AuditWriter, options: F & OutputOptions) => Promise<void>,
  mode: { readOnly?: boolean } = {},
): Promise<void> {
  const options = outputOptions(flags);
  // A verb that only reads opens read-only: it leaves nothing behind (see openReadCliStore).
  const store = mode.readOnly ? await openReadCliStore(options) : await openCliStore(options);
  try {
    await work(store, new AuditWriter(store), options);
  } finally {
    await store.close();
  }
}

/** Reads a file, or NOT_FOUND with the path. */
export async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (cause) {
    throw new KeelError("NOT_FOUND", `Cannot read ${path}.`, { cause, hint: "Check the path." });
  }
}

/** Reads a JSON file, or a clear error. */
export async function readJson(path: string): Promise<unknown> {
  const text = await readText(path);
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `${path} is not valid JSON: ${(cause as Error).message}`,
      {
        cause,
        hint: "Fix the JSON syntax (`jq . <file>` shows where).",
      },
    );
  }
}

/** `--autonomy A2` checked against the seed's levels. */
export function autonomyFlag(value: string | undefined, fallback: AutonomyLevel): AutonomyLevel {
  if (value === undefined) return fallback;
  const parsed = AutonomySchema.safeParse(value.toUpperCase());
  if (!parsed.success) {
    throw new KeelError("INVALID_ARGUMENT", `Unknown autonomy level "${value}".`, {
      hint: `Use one of ${AutonomySchema.options.join(", ")}.`,
    });
  }
  return parsed.data;
}

/** `--limit` as a positive integer. */
export function limitFlag(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `--limit must be a positive whole number, not "${value}".`,
    );
  }
  return n;
}

/**
 * One audit event as a timeline line. Refs are whole ids: a UUIDv7 starts with its timestamp, so
 * any prefix short enough to save space is shared by every id made in the same minute.
 */
export function timelineLine(event: AuditEvent): string {
  const refs = Object.entries(event.refs)
    .filter(([, id]) => id !== null)
    .map(([key, id]) => `${key.replace(/_id$/, "")}=${String(id)}`)
    .join(" ");
  const latency = event.latency_ms === null ? "" : ` (${event.latency_ms} ms)`;
  return `${event.timestamp}  ${event.stage.padEnd(9)} ${event.outcome.padEnd(10)} ${event.type.padEnd(28)} ${event.summary}${latency}${refs ? `  [${refs}]` : ""}`;
}

/** A continuation as JSON: the run's id, status and what it waits for, or why it did not go on. */
export function continuationJson(run: Continuation): Record<string, unknown> {
  return run.continued
    ? {
        id: run.result.run.id,
        continued: true,
        status: run.result.run.status,
        traceId: run.result.task.trace_id,
        waitingFor: run.result.waitingFor,
      }
    : {
        id: run.runId,
        continued: false,
        reason: run.reason,
        message: run.message,
        error: run.error ?? null,
      };
}

/**
 * Before an operator's decision on approval `id`: loads what continuing its run will need (the
 * application module it recorded, or its IR document) and checks an answer against the
 * document's state, so that a module that cannot be loaded or a bad answer is refused BEFORE
 * anything is decided, not after.
 */
export async function prepareContinuation(
  store: Store,
  approval: Approval,
  answer: unknown,
): Promise<void> {
  const runId = approval.refs.task_id;
  if (runId === null || approval.status !== "pending") return;
  const grant = await loadGrant(runtimeDb(store), runId);
  if (grant?.app) {
    await loadGovernedApp(grant.app, store);
    return;
  }
  if (approval.what.kind !== "interrupt") return;
  const { compiled } = await loadRunDocument(store, runId);
  const problems = compiled.checkInput(answer ?? {}, "The answer");
  if (problems.length > 0) throw new IrValidationError("The answer", problems);
}

/**
 * After an operator's decision: continues the run waiting for it here, unless it belongs to no
 * run or `--no-resume` leaves it to be resumed (null; `describeAfterDecision` says which).
 */
export async function continueAfterDecision(
  store: Store,
  runId: string | null,
  resume: boolean | undefined,
): Promise<Continuation | null> {
  return runId !== null && resume !== false ? continueGovernedRun(store, runId) : null;
}

/**
 * What became of the run after an operator's decision: how it continued here, that it waits to
 * be resumed (`--no-resume`), or nothing when the decision belongs to no run.
 */
export function describeAfterDecision(run: Continuation | null, runId: string | null): string {
  if (run) return describeContinuation(run);
  return runId ? `run ${runId} continues when it is resumed` : "";
}

/** A continuation in words. */
export function describeContinuation(run: Continuation): string {
  if (!run.continued) return run.message;
  const { result } = run;
  const waiting = result.waitingFor.map(
    (w) => `  waiting for ${w.kind} ${w.approval_id ?? w.tool_call_id ?? ""}: ${w.how_to_continue}`,
  );
  return [`run ${result.run.id} continued: ${result.run.status}`, ...waiting].join("\n");
}

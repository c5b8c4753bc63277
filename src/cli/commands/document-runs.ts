import { readFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";
import {
  type DurableSaver,
  type RunDocument,
  RunDocumentStore,
  type RunRecord,
  RunStore,
} from "../../checkpoint/index.js";
import { KeelError, toKeelError } from "../../core/index.js";
import {
  assertMayRespond,
  assertMigratable,
  type CompiledDocument,
  compileDocument,
  documentText,
  type IrRunState,
  IrValidationError,
  loadKindsModule,
  loadPackFiles,
  moduleTarget,
  type NodeFactory,
  type PackSource,
  type PendingInterrupt,
  type Problem,
  pendingInterrupt,
  resumeDocument,
  type StateClasses,
  type Transition,
  timedOut,
  validateDocument,
} from "../../ir/index.js";
import {
  AuditWriter,
  type AutonomyLevel,
  continueGovernedDocument,
  type GovernedPause,
  loadGrant,
  respondToDocument,
  runtimeDb,
  startGovernedDocument,
} from "../../runtime/index.js";
import type { Store } from "../../store/index.js";
import { pc } from "../colors.js";
import { type OutputOptions, printResult, table } from "../output.js";
import { saverFor } from "./saver-for.js";

/** What one `keel run` / `keel runs resume|respond` did, ready to print. */
export interface DocumentRunOutcome {
  run: RunRecord;
  document: RunDocument;
  compiled: CompiledDocument;
  out: Record<string, unknown>;
  /** The interrupt the run waited at had timed out, so its `on_timeout` was taken. */
  timedOut?: PendingInterrupt;
  /** What a governed run waits for (approvals, an operator). */
  waitingFor?: GovernedPause[];
  /** `keel ir lint`'s warnings about the document. */
  warnings?: Problem[];
}

/** Options of a governed `keel run <file>`. */
export interface GovernedRunOptions {
  input: unknown;
  threadId?: string;
  /** The answer to the interrupt the latest run on `threadId` waits for (`--respond`). */
  respond?: unknown;
  packsDir?: string;
  kinds?: readonly string[];
  pluginPacks?: Record<string, PackSource>;
  /** The responder's capabilities (`--capability`). */
  capabilities?: readonly string[];
  autonomy?: AutonomyLevel;
}

/**
 * `keel run <file>`: a governed run of the document (see `startGovernedDocument`); with
 * `respond`, the answer to the interrupt the latest run on the thread waits at, refused when it
 * waits for none (no run record is made).
 */
export async function runDocumentGoverned(
  store: Store,
  file: string,
  options: GovernedRunOptions,
): Promise<DocumentRunOutcome> {
  const path = resolve(file);
  const packsDir = options.packsDir === undefined ? undefined : resolve(options.packsDir);
  const kinds = (options.kinds ?? []).map((module) => moduleTarget(module, process.cwd()));
  if (options.respond !== undefined) {
    if (options.threadId === undefined) {
      throw new KeelError("INVALID_ARGUMENT", "--respond needs --thread <id>.", {
        hint: "Or answer by run id: keel runs respond <run id> --value <json>.",
      });
    }
    const [latest] = await new RunStore(saverFor(store)).list({
      threadId: options.threadId,
      limit: 1,
    });
    if (!latest) {
      throw new KeelError("RUN_NOT_FOUND", `No run on thread "${options.threadId}".`, {
        details: { thread: options.threadId },
        hint: `Start one: keel run ${file} --thread ${options.threadId} --input '<json>'.`,
      });
    }
    return continueAnyDocumentRun(
      store,
      latest.id,
      { value: options.respond, capabilities: options.capabilities ?? [] },
      options.pluginPacks ?? {},
    );
  }
  return ownTransitions(
    await startGovernedDocument(
      store,
      { path, ...(packsDir !== undefined ? { packsDir } : {}), kinds },
      {
        input: options.input,
        ...(options.threadId !== undefined ? { threadId: options.threadId } : {}),
        ...(options.autonomy !== undefined ? { autonomy: options.autonomy } : {}),
        ...(options.pluginPacks !== undefined ? { pluginPacks: options.pluginPacks } : {}),
      },
    ),
  );
}

/**
 * Continues a run of `keel run` by its id: a governed one (every run since governed IR runs)
 * through the governed runtime, an older one as before. `answer` answers its interrupt
 * (`keel runs respond`); null continues it (`keel runs resume`).
 */
export async function continueAnyDocumentRun(
  store: Store,
  runId: string,
  answer: { value: unknown; capabilities?: readonly string[] } | null,
  pluginPacks: Record<string, PackSource>,
): Promise<DocumentRunOutcome> {
  if (!(await loadGrant(runtimeDb(store), runId))) {
    return continueDocumentRun(saverFor(store), runId, answer, pluginPacks, new AuditWriter(store));
  }
  const outcome =
    answer === null
      ? await continueGovernedDocument(store, runId, pluginPacks)
      : await respondToDocument(
          store,
          runId,
          {
            value: answer.value,
            by: userInfo().username,
            capabilities: answer.capabilities ?? [],
          },
          pluginPacks,
        );
  return ownTransitions(outcome);
}

/**
 * Reads a document file as IR JSON text (a YAML file, Stargraph's authoring format included, is
 * converted: see documentText); NOT_FOUND (exit 5) when it is missing.
 */
export async function readDocument(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new KeelError(
        "NOT_FOUND",
        `No file at ${resolve(file)} (looked for "${file}" from ${process.cwd()}).`,
        {
          cause: error,
          details: { file, looked_at: resolve(file) },
          hint: "Check the path.",
        },
      );
    }
    throw new KeelError("INVALID_ARGUMENT", `Cannot read ${file}: ${(error as Error).message}`, {
      cause: error,
      details: { file },
    });
  }
  return documentText(text, file);
}

/** Parses a JSON flag value, or INVALID_ARGUMENT naming the flag. */
export function parseJsonOption(text: string, flag: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new KeelError("INVALID_ARGUMENT", `${flag} is not JSON: ${(error as Error).message}`, {
      hint: `Pass JSON, e.g. ${flag} '{"severity":5}'.`,
    });
  }
}

/**
 * Compiles the document at `path` (absolute) on `saver`, with its packs from `packsDir` and the
 * node kinds and state classes of `kindModules` (module URLs or package names, as recorded;
 * later ones win).
 */
async function compileFile(
  saver: DurableSaver,
  path: string,
  packsDir: string,
  kindModules: readonly string[],
  pluginPacks: Record<string, PackSource>,
): Promise<CompiledDocument> {
  const text = await readDocument(path);
  const parsed = validateDocument(text);
  // A pack file in the packs folder beats a plugin's pack of the same id: local overrides.
  const packs = parsed.ok
    ? { ...pluginPacks, ...(await loadPackFiles(parsed.document, packsDir)) }
    : {};
  const nodeKinds: Record<string, NodeFactory> = {};
  const stateClasses: StateClasses = {};
  for (const module of kindModules) {
    const loaded = await loadKindsModule(module, ".");
    Object.assign(nodeKinds, loaded.nodeKinds);
    Object.assign(stateClasses, loaded.stateClasses);
  }
  return compileDocument(text, {
    checkpointer: saver,
    baseDir: dirname(path),
    packs,
    nodeKinds,
    stateClasses,
  });
}

/** Options of `keel run <file>`. */
export interface StartRunOptions {
  input: unknown;
  threadId?: string;
  /** Answer to the interrupt the latest run on `threadId` waits for (the `--respond` form). */
  respond?: unknown;
  packsDir?: string;
  /** Modules with more node kinds (`--kinds`): paths relative to the current directory, or packages. */
  kinds?: readonly string[];
  /** Governance packs the scope's plugins provide (see `loadPluginPacks`). */
  pluginPacks?: Record<string, PackSource>;
  /** Capabilities the one answering holds (`--capability`): the interrupt may require one. */
  capabilities?: readonly string[];
}

/**
 * Starts a run of the document at `file` as a run record linked to the document (its absolute
 * path, graph hash, input and packs folder), so `keel runs resume|respond <run id>` can continue
 * it later. With `respond`, the paused run on the thread is continued instead (a new record is
 * made only when the thread has no paused run).
 */
export async function startDocumentRun(
  saver: DurableSaver,
  file: string,
  options: StartRunOptions,
): Promise<DocumentRunOutcome> {
  return ownTransitions(await startRun(saver, file, options));
}

async function startRun(
  saver: DurableSaver,
  file: string,
  options: StartRunOptions,
): Promise<DocumentRunOutcome> {
  const path = resolve(file);
  const packsDir = resolve(options.packsDir ?? join(dirname(path), "packs"));
  // Recorded resolved, so `keel runs resume` from another directory loads the same modules.
  const kinds = (options.kinds ?? []).map((module) => moduleTarget(module, process.cwd()));
  const compiled = await compileFile(saver, path, packsDir, kinds, options.pluginPacks ?? {});
  const runStore = new RunStore(saver);
  const documents = new RunDocumentStore(saver);
  if (options.respond !== undefined) {
    if (options.threadId === undefined) {
      throw new KeelError("INVALID_ARGUMENT", "--respond needs --thread <id>.", {
        hint: "Or answer by run id: keel runs respond <run id> --value <json>.",
      });
    }
    // An answer after the deadline is not applied (on_timeout is taken), so only a live one is
    // checked; a bad one is refused before any run is created or touched.
    const expired = await expiredInterrupt(compiled, options.threadId);
    if (!expired.timedOut) assertInput(compiled, options.respond, "The answer");
    const [latest] = await runStore.list({ threadId: options.threadId, limit: 1 });
    const run =
      latest?.status === "paused"
        ? latest
        : await newRun(runStore, documents, compiled, { path, packsDir, kinds }, options);
    const document = await documentOf(documents, run, compiled, { path, packsDir, kinds }, options);
    const value = options.respond;
    await assertDocumentGate(compiled, run.threadId, document.graphHash);
    const responder = { capabilities: options.capabilities ?? [] };
    await assertMayRespond(compiled, run.threadId, responder);
    const { run: after, result } = await executeRun(saver, run, () =>
      resumeDocument(compiled, run.threadId, value, responder),
    );
    return { run: after, document, compiled, out: result, ...expired };
  }
  // Checked before the run record exists: a bad input is refused, not a failed run.
  assertInput(compiled, options.input, "The run's input", { start: true });
  const run = await newRun(runStore, documents, compiled, { path, packsDir, kinds }, options);
  const document = await documents.get(run.id);
  const { run: after, result } = await executeRun(saver, run, (config) =>
    compiled.graph.invoke(options.input, { recursionLimit: compiled.recursionLimit, ...config }),
  );
  return { run: after, document, compiled, out: result as Record<string, unknown> };
}

/**
 * Keeps only this run's transitions in the outcome. A thread's state, transitions included,
 * carries over from one run to the next; this run's start where the thread stood when its input
 * was written (the thread's newest checkpoint of source "input": runs on a thread are
 * sequential, and answering or resuming a run writes no new input).
 */
async function ownTransitions(outcome: DocumentRunOutcome): Promise<DocumentRunOutcome> {
  const all = outcome.out.__ir_transitions as Transition[] | undefined;
  if (!all) return outcome;
  const config = { configurable: { thread_id: outcome.run.threadId } };
  const inputs = outcome.compiled.graph.getStateHistory(config, {
    filter: { source: "input" },
    limit: 1,
  }) as AsyncIterable<{ values?: { __ir_transitions?: unknown[] } }>;
  let before = 0;
  for await (const snapshot of inputs) before = snapshot.values?.__ir_transitions?.length ?? 0;
  return before === 0
    ? outcome
    : { ...outcome, out: { ...outcome.out, __ir_transitions: all.slice(before) } };
}

/** Throws `IR_INVALID` (exit 1) with every problem when `value` does not fit the run's state. */
function assertInput(
  compiled: CompiledDocument,
  value: unknown,
  what: string,
  options: { start?: boolean } = {},
): void {
  const problems = compiled.checkInput(value, what, options);
  if (problems.length > 0) throw new IrValidationError(what, problems);
}

/** The interrupt a run waits at when its deadline has passed (`{ timedOut }`), else nothing. */
async function expiredInterrupt(
  compiled: CompiledDocument,
  threadId: string,
): Promise<{ timedOut?: PendingInterrupt }> {
  const pending = await pendingInterrupt(compiled, threadId);
  return pending && timedOut(pending) ? { timedOut: pending } : {};
}

/** Where a run's document, packs and node kinds come from (all resolved). */
interface DocumentSources {
  path: string;
  packsDir: string;
  kinds: string[];
}

async function newRun(
  runStore: RunStore,
  documents: RunDocumentStore,
  compiled: CompiledDocument,
  sources: DocumentSources,
  options: StartRunOptions,
): Promise<RunRecord> {
  const run = await runStore.create({
    graphId: compiled.document.id,
    ...(options.threadId !== undefined ? { threadId: options.threadId } : {}),
  });
  await documents.record({
    runId: run.id,
    documentPath: sources.path,
    documentId: compiled.document.id,
    graphHash: compiled.graphHash,
    input: options.input,
    packsDir: sources.packsDir,
    nodeKinds: sources.kinds,
  });
  return run;
}

/** The recorded document of a run; a run from before documents were recorded gets one now. */
async function documentOf(
  documents: RunDocumentStore,
  run: RunRecord,
  compiled: CompiledDocument,
  sources: DocumentSources,
  options: StartRunOptions,
): Promise<RunDocument> {
  try {
    return await documents.get(run.id);
  } catch (error) {
    if (!(error instanceof KeelError) || error.code !== "NOT_FOUND") throw error;
    return documents.record({
      runId: run.id,
      documentPath: sources.path,
      documentId: compiled.document.id,
      graphHash: compiled.graphHash,
      input: options.input,
      packsDir: sources.packsDir,
      nodeKinds: sources.kinds,
    });
  }
}

/**
 * Continues a run by its id with its recorded document: `value` answers the interrupt it waits
 * for (`keel runs respond`); without it (`keel runs resume`) a paused, crashed or failed run goes
 * on from its latest checkpoint (or from its recorded input when it has none). Refuses a finished
 * run (RUN_INVALID_TRANSITION), a resume of a run that waits for an answer
 * (RUN_AWAITING_RESPONSE), an answer to a run that waits for none (RUN_NOT_AWAITING_RESPONSE),
 * and a document that changed without a `migrate` entry (IR_GRAPH_CHANGED).
 */
export async function continueDocumentRun(
  saver: DurableSaver,
  runId: string,
  answer: { value: unknown; capabilities?: readonly string[] } | null,
  pluginPacks: Record<string, PackSource> = {},
  audit?: AuditWriter,
): Promise<DocumentRunOutcome> {
  return ownTransitions(await continueRun(saver, runId, answer, pluginPacks, audit));
}

async function continueRun(
  saver: DurableSaver,
  runId: string,
  answer: { value: unknown; capabilities?: readonly string[] } | null,
  pluginPacks: Record<string, PackSource>,
  audit: AuditWriter | undefined,
): Promise<DocumentRunOutcome> {
  const runStore = new RunStore(saver);
  const run = await runStore.get(runId);
  if (run.status === "succeeded" || run.status === "canceled") {
    throw new KeelError(
      "RUN_INVALID_TRANSITION",
      `Run ${run.id} already finished (${run.status}).`,
      {
        details: { runId: run.id, status: run.status },
        hint: `Start a new run: keel run <file> --thread ${run.threadId} --input <json>.`,
      },
    );
  }
  const document = await new RunDocumentStore(saver).get(run.id);
  const compiled = await compileFile(
    saver,
    document.documentPath,
    document.packsDir ?? join(dirname(document.documentPath), "packs"),
    document.nodeKinds,
    pluginPacks,
  );
  const config = { configurable: { thread_id: run.threadId } };
  const tuple = await saver.getTuple(config);
  const waiting = tuple?.pendingWrites.some(([, channel]) => channel === "__interrupt__") ?? false;
  if (answer !== null) {
    if (!waiting) {
      throw new KeelError(
        "RUN_NOT_AWAITING_RESPONSE",
        `Run ${run.id} is ${run.status} and waits for no answer.`,
        {
          details: { runId: run.id, status: run.status },
          hint: `Continue it with: keel runs resume ${run.id}`,
        },
      );
    }
    await assertDocumentGate(compiled, run.threadId, document.graphHash);
    // Refused before the run is touched, so a missing capability leaves it waiting.
    const responder = { capabilities: answer.capabilities ?? [] };
    await assertMayRespond(compiled, run.threadId, responder);
    const expired = await expiredInterrupt(compiled, run.threadId);
    if (!expired.timedOut) assertInput(compiled, answer.value, "The answer");
    const { run: after, result } = await executeRun(saver, run, () =>
      resumeDocument(compiled, run.threadId, answer.value, responder),
    );
    return { run: after, document, compiled, out: result, ...expired };
  }
  if (waiting) {
    // A wait past its deadline is over: resuming takes the interrupt's on_timeout (the wait
    // node sees the deadline too). Before the deadline, resuming would only ask again.
    const expired = await expiredInterrupt(compiled, run.threadId);
    if (expired.timedOut) {
      await assertDocumentGate(compiled, run.threadId, document.graphHash);
      const { run: after, result } = await executeRun(saver, run, () =>
        resumeDocument(compiled, run.threadId, null),
      );
      return { run: after, document, compiled, out: result, ...expired };
    }
    const pending = await pendingInterrupt(compiled, run.threadId);
    const until =
      pending?.deadline != null
        ? ` until ${new Date(pending.deadline).toISOString()} (then resuming takes its on_timeout, ${pending.onTimeout})`
        : "";
    throw new KeelError(
      "RUN_AWAITING_RESPONSE",
      `Run ${run.id} is waiting at an interrupt${until}; resuming now would only ask again.`,
      {
        details: { runId: run.id, status: run.status, deadline_at: pending?.deadline ?? null },
        hint: `Answer it: keel runs respond ${run.id} --value '<json>'`,
      },
    );
  }
  await assertDocumentGate(compiled, run.threadId, document.graphHash);
  // A run still `pending` never started (any checkpoint on its thread is an earlier run's), and
  // one without a checkpoint never got going: both start from their recorded input.
  const input = tuple && run.status !== "pending" ? null : document.input;
  // A failed run is final unless retried on purpose: this is that retry, audited before it runs.
  const retry = run.status === "failed";
  if (retry) await auditRetry(audit, run);
  const { run: after, result } = await executeRun(
    saver,
    run,
    (runConfig) =>
      compiled.graph.invoke(input, { recursionLimit: compiled.recursionLimit, ...runConfig }),
    retry,
  );
  return { run: after, document, compiled, out: result as Record<string, unknown> };
}

/**
 * The resume gate, checked before the run is touched so a refusal leaves it as it was: the graph
 * hash the run's checkpoint started with (or, before its first checkpoint, the recorded one) must
 * equal the document's, or `migrate` entries must lead there (IR_GRAPH_CHANGED).
 */
async function assertDocumentGate(
  compiled: CompiledDocument,
  threadId: string,
  recordedHash: string,
): Promise<void> {
  const snapshot = (await compiled.graph.getState({ configurable: { thread_id: threadId } })) as {
    values?: { __ir?: IrRunState };
  };
  const started = snapshot.values?.__ir?.graph_hash ?? recordedHash;
  assertMigratable(started, compiled.graphHash, compiled.document.migrate);
}

/**
 * Executes a run; when it fails, the error names the run and how to retry it. A run that pauses
 * at an interrupt with a timeout gets the deadline as its wake time (`state_runs.next_wake_at`,
 * the seed-003 Task's next wake time), which `keel runs list|show|wake` read; otherwise none.
 */
async function executeRun<T>(
  saver: DurableSaver,
  run: RunRecord,
  invoke: (config: { configurable: { thread_id: string } }) => Promise<T>,
  retry = false,
): Promise<{ run: RunRecord; result: T }> {
  const runStore = new RunStore(saver);
  try {
    const done = await runStore.execute(run.id, invoke, { retry });
    const nextWakeAt = done.run.status === "paused" ? deadlineOf(done.result) : null;
    if (nextWakeAt !== done.run.nextWakeAt || run.nextWakeAt !== nextWakeAt) {
      await saver.sql.run("UPDATE state_runs SET next_wake_at = ? WHERE id = ?", [
        nextWakeAt,
        run.id,
      ]);
    }
    return { run: { ...done.run, nextWakeAt }, result: done.result };
  } catch (thrown) {
    const current = await runStore.get(run.id).catch(() => null);
    if (current?.status !== "failed") throw thrown;
    const error = toKeelError(thrown);
    throw new KeelError(error.code, error.message, {
      cause: thrown,
      details: { ...error.details, run_id: run.id, thread_id: run.threadId },
      hint: `Run ${run.id} failed; once the cause is fixed, retry it with: keel runs resume ${run.id}`,
    });
  }
}

/** `task.retried` on the run's trace; without an audit writer there is no retry. */
async function auditRetry(audit: AuditWriter | undefined, run: RunRecord): Promise<void> {
  if (!audit) {
    throw new KeelError(
      "RUN_INVALID_TRANSITION",
      `Run ${run.id} failed; retrying it must be audited.`,
      {
        details: { runId: run.id, from: run.status, to: "running" },
        hint: `Retry it with: keel runs resume ${run.id}`,
      },
    );
  }
  await audit.write(run.traceId, {
    stage: "operator",
    type: "task.retried",
    summary: `run ${run.id} failed (${run.error?.code ?? "unknown error"}); retried from its last checkpoint by keel runs resume`,
    outcome: "info",
    refs: { task_id: run.id },
  });
}

/** The deadline of the interrupt a run's result waits at, if it has one. */
function deadlineOf(result: unknown): number | null {
  const interrupts = (result as { __interrupt__?: { value?: { deadline_at?: unknown } }[] })
    ?.__interrupt__;
  const deadline = interrupts?.[0]?.value?.deadline_at;
  return typeof deadline === "number" ? deadline : null;
}

/** Prints a run's outcome: run id, status, final state and transitions (JSON under --json). */
export function printDocumentRun(options: OutputOptions, outcome: DocumentRunOutcome): void {
  const { run, document, compiled, out, timedOut: expired } = outcome;
  const interrupts = (out.__interrupt__ as { value: unknown }[] | undefined) ?? [];
  const transitions = (out.__ir_transitions as Transition[] | undefined) ?? [];
  const state = Object.fromEntries(compiled.fields.filter((f) => f in out).map((f) => [f, out[f]]));
  const status = interrupts.length > 0 ? "interrupted" : "completed";
  const waitingFor = outcome.waitingFor ?? [];
  const warnings = outcome.warnings ?? [];
  const result = {
    ok: true,
    run_id: run.id,
    thread_id: run.threadId,
    trace_id: run.traceId,
    run_status: run.status,
    document: document.documentPath,
    graph_hash: compiled.graphHash,
    status,
    state,
    transitions,
    ...(interrupts.length > 0 ? { interrupt: interrupts[0]?.value } : {}),
    waiting_for: waitingFor,
    warnings,
    ...(expired
      ? {
          timed_out: {
            node: expired.node,
            rule: expired.rule,
            prompt: expired.prompt,
            deadline_at: expired.deadline,
            on_timeout: expired.onTimeout,
          },
        }
      : {}),
  };
  if (!options.json && !options.quiet) {
    for (const w of warnings) {
      process.stderr.write(`${pc.yellow("warning")} ${w.path} ${w.code}: ${w.message}\n`);
    }
  }
  const question = interrupts[0]?.value as
    | { prompt?: string; requested_capability?: string | null }
    | undefined;
  const capability = question?.requested_capability
    ? ` --capability ${question.requested_capability}`
    : "";
  printResult(options, result, () =>
    [
      `${status === "completed" ? pc.green(status) : pc.yellow(status)} ${compiled.document.id}: run ${run.id} (${run.status}) on thread ${run.threadId}, trace ${run.traceId}`,
      table(
        ["from", "to", "rule", "reason"],
        transitions.map((t) => [t.from, t.to, t.rule ?? "-", t.reason]),
      ),
      expired
        ? pc.yellow(
            `the interrupt of ${expired.node} timed out at ${new Date(expired.deadline ?? 0).toISOString()}: took on_timeout (${expired.onTimeout})`,
          )
        : "",
      `state: ${JSON.stringify(state)}`,
      ...waitingFor.map(
        (w) =>
          `waiting for ${w.kind}${w.approval_id ? ` ${w.approval_id}` : ""}${w.tool_call_id ? ` (call ${w.tool_call_id})` : ""}: ${w.how_to_continue}`,
      ),
      status === "interrupted" && question?.prompt !== undefined
        ? `waiting: ${JSON.stringify(interrupts[0]?.value)}\nanswer with: keel runs respond ${run.id} --value '<json>'${capability}`
        : "",
    ]
      .filter(Boolean)
      .join("\n"),
  );
}

import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { type RunDocument, RunDocumentStore, type RunRecord } from "../../checkpoint/index.js";
import { KeelError, toKeelError } from "../../core/index.js";
import {
  assertMigratable,
  type CompiledDocument,
  compileDocument,
  type IrRunState,
  IrValidationError,
  lintDocument,
  loadKindsModule,
  loadPackFiles,
  loadPluginPacks,
  type NodeFactory,
  type PackSource,
  type PendingInterrupt,
  type Problem,
  pendingInterrupt,
  type StateClasses,
  validateDocument,
} from "../../ir/index.js";
import { discoverStorePlugins, type Store } from "../../store/index.js";
import type { AutonomyLevel } from "../contracts/enums.js";
import {
  type GovernedGraph,
  type GovernedRunResult,
  GovernedRuntime,
} from "../runs/governed-runtime.js";
import type { GovernedPause } from "../runs/node-context.js";
import { lintTools, loadDocumentTools, toolModules } from "./document-tools.js";
import { documentGovernance } from "./ir-governance.js";
import { ruleLimitsOf } from "./rule-limits.js";

/** Where a document run's document, packs and node kinds come from (all resolved). */
export interface DocumentSources {
  /** Absolute path of the document file. */
  path: string;
  /** Folder of `<pack id>.clp` files (default: `packs/` beside the document). */
  packsDir?: string;
  /** Kinds modules (file URLs or packages), as `moduleTarget` gives them. */
  kinds?: readonly string[];
}

/** A document compiled for governed runs, with the runtime that runs it and its lint warnings. */
export interface GovernedDocument {
  runtime: GovernedRuntime;
  compiled: CompiledDocument;
  warnings: Problem[];
}

/** Where a governed document run stands after a command. */
export interface DocumentRunResult {
  run: RunRecord;
  document: RunDocument;
  compiled: CompiledDocument;
  /** The graph's result: the state, with `__interrupt__` while it waits. */
  out: Record<string, unknown>;
  /** What the run waits for: an approval (an interrupt, a gated tool) or an operator. */
  waitingFor: GovernedPause[];
  warnings: Problem[];
  /** The interrupt the run waited at had expired, so its `on_timeout` was taken. */
  timedOut?: PendingInterrupt;
}

/**
 * Compiles a document for governed runs: its packs (files beside it, then the scope's plugins),
 * its node kinds and state classes, and the tools its modules export, on a GovernedRuntime over
 * `store`. Lint warnings come back with it (`lintDocument`, `lintTools`).
 */
export async function loadGovernedDocument(
  store: Store,
  sources: DocumentSources,
  pluginPacks?: Record<string, PackSource>,
): Promise<GovernedDocument> {
  const text = await readDocumentFile(sources.path);
  const parsed = validateDocument(text);
  if (!parsed.ok) throw new IrValidationError("IR document", parsed.problems);
  const doc = parsed.document;
  const packsDir = sources.packsDir ?? join(dirname(sources.path), "packs");
  // A pack file in the packs folder beats a plugin's pack of the same id: local overrides.
  const packs = {
    ...(pluginPacks ?? (await loadPluginPacks(await discoverStorePlugins(store)))),
    ...(await loadPackFiles(doc, packsDir)),
  };
  const nodeKinds: Record<string, NodeFactory> = {};
  const stateClasses: StateClasses = {};
  for (const module of sources.kinds ?? []) {
    const loaded = await loadKindsModule(module, ".");
    Object.assign(nodeKinds, loaded.nodeKinds);
    Object.assign(stateClasses, loaded.stateClasses);
  }
  const baseDir = dirname(sources.path);
  const tools = await loadDocumentTools(toolModules(doc, baseDir, sources.kinds ?? [], nodeKinds));
  const runtime = new GovernedRuntime({ store, tools });
  const compiled = await compileDocument(text, {
    ruleLimits: await ruleLimitsOf(store),
    checkpointer: runtime.checkpointer,
    baseDir,
    packs,
    nodeKinds,
    stateClasses,
    governance: documentGovernance(doc),
    storeContext: { kernel: store },
  });
  return { runtime, compiled, warnings: [...lintDocument(doc), ...lintTools(doc, tools)] };
}

/** How to start a governed run of a document. */
export interface StartDocumentRun {
  input: unknown;
  threadId?: string;
  /** The run's autonomy level (default A2): with a tool's risk, it decides the tool's gate. */
  autonomy?: AutonomyLevel;
  /** What the run itself holds (tools' `permissions` are checked against it). */
  capabilities?: readonly string[];
  pluginPacks?: Record<string, PackSource>;
}

/**
 * Starts a governed run of the document: the input is checked against the document's state
 * first (every problem, `IR_INVALID`, and no run record), then the run is created with its
 * document recorded (so operators continue it by id), audited, and executed until it ends or
 * waits for a person.
 *
 * @example
 * const r = await startGovernedDocument(store, { path: "/abs/refund.json" }, { input });
 * // r.waitingFor[0].approval_id → keel approvals approve <id> --value '{"approved":true}'
 */
export async function startGovernedDocument(
  store: Store,
  sources: DocumentSources,
  options: StartDocumentRun,
): Promise<DocumentRunResult> {
  const loaded = await loadGovernedDocument(store, sources, options.pluginPacks);
  const { runtime, compiled } = loaded;
  const problems = compiled.checkInput(options.input, "The run's input", { start: true });
  if (problems.length > 0) throw new IrValidationError("The run's input", problems);
  const documents = new RunDocumentStore(runtime.checkpointer);
  let document: RunDocument | undefined;
  let created: RunRecord | undefined;
  const started = await failureNamesRun(
    runtime,
    () => created,
    () =>
      runtime.start({
        graph: boundedGraph(compiled),
        input: options.input,
        autonomy: options.autonomy ?? "A2",
        capabilities: options.capabilities ?? [],
        graphId: compiled.document.id,
        ...(options.threadId !== undefined ? { threadId: options.threadId } : {}),
        onCreated: async (run) => {
          created = run;
          document = await documents.record({
            runId: run.id,
            documentPath: sources.path,
            documentId: compiled.document.id,
            graphHash: compiled.graphHash,
            input: options.input,
            packsDir: sources.packsDir ?? null,
            nodeKinds: [...(sources.kinds ?? [])],
          });
        },
      }),
  );
  return outcome(started, document as RunDocument, loaded);
}

/** The compiled document a run recorded, on a runtime over `store`, checked by the resume gate. */
export async function loadRunDocument(
  store: Store,
  runId: string,
  pluginPacks?: Record<string, PackSource>,
): Promise<GovernedDocument & { document: RunDocument }> {
  const probe = new GovernedRuntime({ store, tools: await loadDocumentTools([]) });
  const document = await new RunDocumentStore(probe.checkpointer).get(runId);
  const loaded = await loadGovernedDocument(
    store,
    {
      path: document.documentPath,
      ...(document.packsDir !== null ? { packsDir: document.packsDir } : {}),
      kinds: document.nodeKinds,
    },
    pluginPacks,
  );
  const run = await loaded.runtime.runs.get(runId);
  const snapshot = (await loaded.compiled.graph.getState({
    configurable: { thread_id: run.threadId },
  })) as { values?: { __ir?: IrRunState } };
  // The graph the run started on must be this one, or `migrate` entries must lead here.
  assertMigratable(
    snapshot.values?.__ir?.graph_hash ?? document.graphHash,
    loaded.compiled.graphHash,
    loaded.compiled.document.migrate,
  );
  return { ...loaded, document };
}

/** Who answers an interrupt, and with what. */
export interface DocumentAnswer {
  value: unknown;
  by: string;
  capabilities?: readonly string[];
  reason?: string | null;
}

/**
 * Answers the interrupt a governed document run waits at: the answer is checked against the
 * state (refused before anything is decided), the interrupt's Approval is approved with it (the
 * decider must hold its capability), and the run continues. An approval already expired is not
 * decided: the run takes its `on_timeout` (`timedOut`). A run that waits for no answer is
 * `RUN_NOT_AWAITING_RESPONSE`, and nothing is recorded.
 */
export async function respondToDocument(
  store: Store,
  runId: string,
  answer: DocumentAnswer,
  pluginPacks?: Record<string, PackSource>,
): Promise<DocumentRunResult> {
  const loaded = await loadRunDocument(store, runId, pluginPacks);
  const { runtime, compiled } = loaded;
  const run = await runtime.runs.get(runId);
  const approvals = await runtime.approvals.listForTask(runId);
  const question = approvals.find(
    (a) => a.what.kind === "interrupt" && (a.status === "pending" || a.status === "expired"),
  );
  if (run.status === "succeeded" || run.status === "canceled") {
    throw new KeelError(
      "RUN_INVALID_TRANSITION",
      `Run ${runId} already finished (${run.status}).`,
      {
        details: { runId, status: run.status },
        hint: `Start a new run: keel run <file> --thread ${run.threadId} --input '<json>'.`,
      },
    );
  }
  const live = run.status === "paused" || run.status === "running";
  if (!live || !question) {
    throw new KeelError(
      "RUN_NOT_AWAITING_RESPONSE",
      `Run ${runId} is ${run.status} and waits for no answer.`,
      {
        details: { runId, status: run.status },
        hint:
          run.status === "paused"
            ? `It waits for something else: keel approvals list, keel ledger list --run ${runId}.`
            : `Start a new run: keel run <file> --thread ${run.threadId} --input '<json>'.`,
      },
    );
  }
  const pending = await pendingInterrupt(compiled, run.threadId);
  if (question.status === "pending") {
    const problems = compiled.checkInput(answer.value, "The answer");
    if (problems.length > 0) throw new IrValidationError("The answer", problems);
    const decided = await runtime.approvals.approve(question.approval_id, {
      by: answer.by,
      reason: answer.reason ?? null,
      capabilities: answer.capabilities ?? [],
      answer: answer.value,
    });
    if (decided.status !== "approved") return continueGovernedDocument(store, runId, pluginPacks);
  }
  const resumed = await failureNamesRun(
    runtime,
    () => run,
    () => runtime.resume(runId, boundedGraph(compiled)),
  );
  const timedOut = question.status === "expired" && pending ? { timedOut: pending } : {};
  return { ...(await outcome(resumed, loaded.document, loaded)), ...timedOut };
}

/**
 * Continues a governed document run by its id: a paused one once what it waits for is decided
 * (`APPROVAL_PENDING` while not; an interrupt whose approval expired takes its `on_timeout`), a
 * crashed one from its last checkpoint (its calls in doubt first become `unknown`), and a failed
 * one as a deliberate retry (`task.retried`).
 */
export async function continueGovernedDocument(
  store: Store,
  runId: string,
  pluginPacks?: Record<string, PackSource>,
): Promise<DocumentRunResult> {
  const loaded = await loadRunDocument(store, runId, pluginPacks);
  const { runtime, compiled } = loaded;
  const run = await runtime.runs.get(runId);
  if (run.status === "succeeded" || run.status === "canceled") {
    throw new KeelError(
      "RUN_INVALID_TRANSITION",
      `Run ${runId} already finished (${run.status}).`,
      {
        details: { runId, status: run.status },
        hint: `Start a new run: keel run <file> --thread ${run.threadId} --input '<json>'.`,
      },
    );
  }
  const pending = await pendingInterrupt(compiled, run.threadId);
  const questions = (await runtime.approvals.listForTask(runId)).filter(
    (a) => a.what.kind === "interrupt",
  );
  const asking = questions.find((a) => a.status === "pending");
  // A run still marked running whose process died waits all the same.
  if ((run.status === "paused" || run.status === "running") && asking) {
    // The interrupt's own deadline, when it has one: the approval's expiry is rounded up to seconds.
    const until =
      typeof pending?.deadline === "number"
        ? new Date(pending.deadline).toISOString()
        : asking.expires_at;
    throw new KeelError(
      "RUN_AWAITING_RESPONSE",
      `Run ${runId} is waiting for an answer (approval ${asking.approval_id}, until ${until}; then resuming takes its on_timeout, ${pending?.onTimeout ?? "halt"}); resuming now would only ask again.`,
      {
        details: {
          runId,
          status: run.status,
          approval_id: asking.approval_id,
          deadline_at: pending?.deadline ?? null,
        },
        hint: `Answer it: keel runs respond ${runId} --value '<json>'${asking.required_capability ? ` --capability ${asking.required_capability}` : ""}`,
      },
    );
  }
  const expired = pending !== null && questions.some((a) => a.status === "expired");
  const result = await failureNamesRun(
    runtime,
    () => run,
    () =>
      run.status === "failed"
        ? runtime.retry(runId, boundedGraph(compiled))
        : run.status === "paused"
          ? runtime.resume(runId, boundedGraph(compiled))
          : runtime.recover(runId, boundedGraph(compiled)),
  );
  const took = expired && pending ? { timedOut: pending } : {};
  return { ...(await outcome(result, loaded.document, loaded)), ...took };
}

async function outcome(
  result: GovernedRunResult,
  document: RunDocument,
  loaded: GovernedDocument,
): Promise<DocumentRunResult> {
  // A run waiting at an interrupt with a deadline wakes then (`keel runs wake`); otherwise never.
  const interrupts = (result.result as { __interrupt__?: { value?: { deadline_at?: unknown } }[] })
    ?.__interrupt__;
  const deadline = interrupts?.[0]?.value?.deadline_at;
  const nextWakeAt =
    result.run.status === "paused" && typeof deadline === "number" ? deadline : null;
  if (nextWakeAt !== result.run.nextWakeAt) {
    await loaded.runtime.checkpointer.sql.run(
      "UPDATE state_runs SET next_wake_at = ? WHERE id = ?",
      [nextWakeAt, result.run.id],
    );
  }
  return {
    run: { ...result.run, nextWakeAt },
    document,
    compiled: loaded.compiled,
    out: (result.result ?? {}) as Record<string, unknown>,
    waitingFor: result.waitingFor,
    warnings: loaded.warnings,
  };
}

/**
 * Runs `work`; when the run it drives failed, the error names the run and how to retry it (the
 * failure itself is recorded on the run and audited `task.failed`).
 */
async function failureNamesRun<T>(
  runtime: GovernedRuntime,
  run: () => RunRecord | undefined,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (thrown) {
    const record = run();
    const current = record ? await runtime.runs.get(record.id).catch(() => null) : null;
    if (!record || current?.status !== "failed") throw thrown;
    const error = toKeelError(thrown);
    throw new KeelError(error.code, error.message, {
      cause: thrown,
      details: {
        ...(error.details as object | undefined),
        run_id: record.id,
        thread_id: record.threadId,
      },
      hint: `Run ${record.id} failed; once the cause is fixed, retry it with: keel runs resume ${record.id}`,
    });
  }
}

/** Reads a document file; NOT_FOUND (exit 5) naming where it looked. */
async function readDocumentFile(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (cause) {
    const missing = (cause as NodeJS.ErrnoException).code === "ENOENT";
    throw new KeelError(
      missing ? "NOT_FOUND" : "INVALID_ARGUMENT",
      missing
        ? `No file at ${resolve(path)} (looked for "${path}" from ${process.cwd()}).`
        : `Cannot read ${path}: ${(cause as Error).message}`,
      { cause, details: { file: path, looked_at: resolve(path) }, hint: "Check the path." },
    );
  }
}

/** The document's graph as the runtime drives it, each run bounded by the document's step limit. */
function boundedGraph(compiled: CompiledDocument): GovernedGraph {
  return {
    invoke: (input, config) =>
      compiled.graph.invoke(input, { recursionLimit: compiled.recursionLimit, ...config }),
  };
}

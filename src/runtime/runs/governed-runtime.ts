import {
  type DurableSaver,
  PostgresSaver,
  type RunRecord,
  RunStore,
  SqliteSaver,
} from "../../checkpoint/index.js";
import { type Clock, KeelError, newId, systemClock, toKeelError } from "../../core/index.js";
import { Command, type RunConfig } from "../../graph/index.js";
import { moduleTarget } from "../../ir/index.js";
import type { Store } from "../../store/index.js";
import { ApprovalService } from "../approvals/approval-service.js";
import { AuditWriter } from "../audit/audit-writer.js";
import type { Approval } from "../contracts/approval.js";
import { type AutonomyLevel, higherRisk, type RiskLevel } from "../contracts/enums.js";
import type { MessageEvent } from "../contracts/message-event.js";
import type { Step, Task } from "../contracts/task.js";
import { isoFromMs } from "../db/codec.js";
import { runtimeDb } from "../db/tables.js";
import type { Redactor } from "../ledger/redact.js";
import { ToolLedger } from "../ledger/tool-ledger.js";
import type { GatePolicy } from "../policy/gate-policy.js";
import { DEFAULT_APPROVAL_TTL_SECONDS } from "../policy/gate-specs.js";
import { type RandomSource, systemRandom } from "../policy/random.js";
import type { RouteResult } from "../routing/router.js";
import type { ToolProfile } from "../tools/profiles.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import { type GovernedStream, invokeStreaming, type StreamingGraph } from "./governed-stream.js";
import type { GovernedPause } from "./node-context.js";
import {
  diffTransitions,
  type ReplayReport,
  routeTransition,
  stepTransitions,
} from "./replay-report.js";
import { ReplaySource } from "./replay-source.js";
import { decideFromCommand } from "./resume-decision.js";
import { type ApprovalCapability, GOVERNANCE_KEY, type RunContext } from "./run-context.js";
import { loadGrant, type RunGrant } from "./run-grants.js";
import { stepFromRow } from "./step-rows.js";
import { StepStore } from "./step-store.js";
import { pausesOf, TaskRecords } from "./task-records.js";

/** A compiled graph, as the runtime drives it (Keel's CompiledStateGraph fits). */
export interface GovernedGraph extends Partial<StreamingGraph> {
  invoke(input: unknown, config?: RunConfig): Promise<unknown>;
}

/** What a GovernedRuntime needs. */
export interface GovernedRuntimeOptions {
  store: Store;
  tools: ToolRegistry;
  /** The checkpointer runs are saved with (default: the store's durable saver). */
  saver?: DurableSaver;
  audit?: AuditWriter;
  clock?: Clock;
  newId?: () => string;
  /** Jitter source of step retries (seededRandom for reproducible runs). */
  random?: RandomSource;
  /** The gate policy (Keel's default when absent). */
  policy?: GatePolicy;
  approvalTtlSeconds?: number;
  /** The capability a person needs to decide a gated call (default `approve:<tool>`). */
  approvalCapability?: ApprovalCapability;
  /** The ledger's redaction of requests before they are hashed and stored (secrets by default). */
  redact?: Redactor;
  /**
   * How long this runtime's leases last without renewal, in milliseconds (default 30 s; each is
   * renewed every third of it while held). One value sets both: the run's thread lease
   * (`RunStore`'s `leaseTtlMs`: another process may take over a run whose lease lapsed) and the
   * lease on each tool call in flight (`ToolLedger`'s `leaseTtlMs`: recovery marks a call
   * `unknown` only once its lease lapsed). Raise it for tools that may run longer than a lease
   * term without their process being able to renew (a blocked event loop); lower it to recover
   * sooner from a worker that stopped. A positive whole number, else `INVALID_ARGUMENT`.
   */
  leaseTtlMs?: number;
}

/** How to start a governed run. */
export interface StartGovernedRun {
  graph: GovernedGraph;
  input: unknown;
  /** Snapshotted at start; never changes while the run lives. */
  autonomy: AutonomyLevel;
  /** The risk of the run's effectful calls (default and floor: the routing's; else `low`). */
  risk?: RiskLevel;
  /** Capabilities the run holds (tools' `permissions` are checked against them). */
  capabilities?: readonly string[];
  profile?: ToolProfile;
  /** The event that triggered the run (its trace id becomes the run's). */
  event?: MessageEvent;
  /**
   * How the event was routed: a `block` gate refuses to start the run, its `required_scopes`
   * must be among `capabilities`, its risk is the run's floor, and its rules' gate demands apply
   * to every gated call of the run.
   */
  route?: RouteResult;
  graphId?: string;
  labels?: string[];
  /**
   * The application module (a path, file URL or package exporting `keelApp`) this run can be
   * continued and replayed with by operators' tools (`keel approvals approve`, `keel runs
   * resume|replay`), e.g. `import.meta.url` of the module that builds the graph.
   */
  app?: string;
  /** The thread to run on (default: a new one). */
  threadId?: string;
  /**
   * Called once the run is recorded and before it executes: what must be stored with the run
   * for it to be continued elsewhere (an IR run's document) is stored here.
   */
  onCreated?: (run: RunRecord) => Promise<void>;
  /** Stream the run while it goes (the model's tokens with `"messages"`): see GovernedStream. */
  stream?: GovernedStream;
}

/** Where a governed run stands after `start` or `resume`. */
export interface GovernedRunResult {
  run: RunRecord;
  task: Task;
  /** The graph's result (its state, with `__interrupt__` when paused). */
  result: unknown;
  /** What the run waits for when it paused: approvals or an operator. */
  waitingFor: GovernedPause[];
}

/**
 * Runs graphs under governance: every run is a seed-003 Task with its autonomy level snapshotted
 * at start, every node wrapped with `governedNode` is a Step, its tool calls pass the gates and the
 * ledger, a `confirm` gate pauses the run for an Approval and `resume` continues it once decided.
 * Every stage is audited on the run's trace.
 *
 * @example
 * const runtime = new GovernedRuntime({ store, tools });
 * const graph = builder.compile({ checkpointer: runtime.checkpointer });
 * const started = await runtime.start({ graph, input, autonomy: "A2", event, route });
 * // started.waitingFor[0].approval_id → a person approves → runtime.resume(started.run.id, graph)
 */
export class GovernedRuntime {
  readonly store: Store;
  readonly tools: ToolRegistry;
  readonly audit: AuditWriter;
  readonly ledger: ToolLedger;
  readonly approvals: ApprovalService;
  readonly steps: StepStore;
  readonly runs: RunStore;
  /** Compile governed graphs with this checkpointer. */
  readonly checkpointer: DurableSaver;
  readonly #clock: Clock;
  readonly #newId: () => string;
  readonly #random: RandomSource;
  readonly #policy: GatePolicy | undefined;
  readonly #ttl: number;
  readonly #approvalCapability: ApprovalCapability;
  readonly #tasks: TaskRecords;

  constructor(options: GovernedRuntimeOptions) {
    this.store = options.store;
    this.tools = options.tools;
    this.#clock = options.clock ?? systemClock;
    this.#newId = options.newId ?? newId;
    this.#random = options.random ?? systemRandom;
    this.#policy = options.policy;
    this.#ttl = options.approvalTtlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS;
    this.#approvalCapability = options.approvalCapability ?? (({ tool }) => `approve:${tool}`);
    const leaseTtlMs = checkLeaseTtl(options.leaseTtlMs);
    this.audit = options.audit ?? new AuditWriter(this.store, { clock: this.#clock });
    this.ledger = new ToolLedger({
      store: this.store,
      tools: this.tools,
      audit: this.audit,
      clock: this.#clock,
      redact: options.redact,
      leaseTtlMs,
    });
    this.approvals = new ApprovalService({
      store: this.store,
      audit: this.audit,
      clock: this.#clock,
    });
    this.steps = new StepStore(this.store, this.audit, this.#clock, this.#newId);
    this.checkpointer =
      options.saver ??
      (this.store.dialect === "sqlite"
        ? SqliteSaver.fromStore(this.store)
        : PostgresSaver.fromStore(this.store));
    this.#tasks = new TaskRecords(this.store, this.audit);
    this.runs = new RunStore(this.checkpointer, { writeTransition: this.#tasks.write, leaseTtlMs });
  }

  /**
   * Creates the run (Task) and its grant, audits it, and executes it until it ends or pauses.
   * Refused, audited before the refusal propagates, when routing blocks the work
   * (`GATE_BLOCKED`, `task.refused`) or the run lacks a scope routing requires
   * (`CAPABILITY_MISSING`, `task.scope_violation`).
   */
  async start(options: StartGovernedRun): Promise<GovernedRunResult> {
    const decision = options.route?.decision ?? null;
    const traceId = options.event?.correlation.trace_id ?? decision?.trace_id ?? this.#newId();
    const eventId = options.event?.event_id ?? decision?.event_id ?? null;
    // Routing's risk is a floor: the starter may raise it, never lower it.
    const risk = decision
      ? higherRisk(options.risk ?? "low", decision.risk_level)
      : (options.risk ?? "low");
    const refusal = { traceId, eventId, autonomy: options.autonomy, risk };
    if (options.route?.gate.decision === "block") {
      await this.#auditRefusal(refusal, "task.refused", {
        summary: `run not started: routing blocked it (${options.route.gate.explanation})`,
      });
      throw new KeelError(
        "GATE_BLOCKED",
        `Routing blocks this work: ${options.route.gate.explanation}`,
        {
          details: { traceId, eventId },
          hint: "A person must do it, or it must run at a higher autonomy level.",
        },
      );
    }
    const required = decision?.required_scopes ?? [];
    const held = new Set(options.capabilities ?? []);
    const missing = required.filter((scope) => !held.has(scope));
    if (missing.length > 0) {
      // A scope violation is audited before it propagates (invariant 6).
      await this.#auditRefusal(refusal, "task.scope_violation", {
        summary: `run not started: routing requires ${missing.map((s) => `"${s}"`).join(", ")}, which the run does not hold`,
        payload: { required_scopes: required, missing },
      });
      throw new KeelError(
        "CAPABILITY_MISSING",
        `The work routed here requires the scope${missing.length === 1 ? "" : "s"} ${missing.map((s) => `"${s}"`).join(", ")}, which the run was not given.`,
        {
          details: { traceId, eventId, missing, requiredScopes: required },
          hint: "Start the run with those capabilities (`capabilities`), or route the event elsewhere.",
        },
      );
    }
    const run = this.runs.draft({
      traceId,
      triggerEventId: eventId ?? undefined,
      autonomyLevelAtStart: options.autonomy,
      graphId: options.graphId,
      labels: options.labels,
      ...(options.threadId !== undefined ? { threadId: options.threadId } : {}),
    });
    const grant: RunGrant = {
      runId: run.id,
      traceId,
      eventId,
      autonomy: options.autonomy,
      risk,
      gateDemands: options.route?.gateDemands ?? [],
      approvalTtlSeconds: options.route?.approvalTtlSeconds ?? null,
      // Recorded as import() takes it: a file URL for a path, so it loads from any directory.
      app: options.app === undefined ? null : moduleTarget(options.app, process.cwd()),
      profile: options.profile ?? "default",
      capabilities: [...(options.capabilities ?? [])],
      routing: decision,
      handler: options.route?.handler ?? null,
      input: options.input,
      createdAt: this.#clock.now(),
    };
    await this.#tasks.create(run, grant, {
      type: "task.created",
      summary: `run ${run.id} created at autonomy ${grant.autonomy} (risk ${grant.risk})${grant.handler ? ` for ${grant.handler}` : ""}`,
      outcome: "info",
    });
    await options.onCreated?.(run);
    return this.#execute(
      run,
      grant,
      options.graph,
      options.input,
      undefined,
      false,
      options.stream,
    );
  }

  /**
   * Retries a failed run from its last checkpoint (from its input when it has none), on
   * purpose: the run goes `failed → running`, audited `task.retried`. For runs whose failure a
   * fix can cure (an IR document's rule that ran away, a store that was down); a denial or an
   * expiry is not undone by it, since the step that met it meets it again. `options.stream`
   * streams the retried run, as `start`'s does.
   *
   * @example
   * await runtime.retry(runId, graph, { stream: { streamMode: "messages", onChunk: ([token]) => show(token) } });
   */
  async retry(
    runId: string,
    graph: GovernedGraph,
    options: { stream?: GovernedStream } = {},
  ): Promise<GovernedRunResult> {
    const run = await this.runs.get(runId);
    const grant = await this.grantOf(runId);
    if (run.status !== "failed") {
      throw new KeelError("RUN_INVALID_TRANSITION", `Run ${runId} is ${run.status}, not failed.`, {
        details: { runId, from: run.status, to: "running" },
        hint: `Continue it with: keel runs resume ${runId}`,
      });
    }
    const saved = await this.checkpointer.getTuple({ configurable: { thread_id: run.threadId } });
    const input = saved ? null : grant.input;
    return this.#execute(run, grant, graph, input, undefined, true, options.stream);
  }

  /**
   * Continues a paused run once what it waited for is settled. Refuses (`APPROVAL_PENDING`) while
   * an approval of the run is still pending; an approval that expired meanwhile is marked
   * `expired` and the step waiting for it fails with `APPROVAL_EXPIRED`. With
   * `new Command({ resume: { decision: "approve", by: "ana", capabilities } })` it decides the
   * pending approval first (an {@link ApprovalResume}: checked and audited as any decision).
   *
   * @example
   * await runtime.resume(runId, graph, new Command({ resume: { decision: "deny", by: "ana", reason: "no" } }));
   * // `options.stream` streams the continued run, as `start`'s does.
   */
  async resume(
    runId: string,
    graph: GovernedGraph,
    command?: Command,
    options: { stream?: GovernedStream } = {},
  ): Promise<GovernedRunResult> {
    const run = await this.runs.get(runId);
    const grant = await this.grantOf(runId);
    assertResumable(run);
    let approvals = await this.approvals.listForTask(runId);
    let pending = approvals.filter((approval) => approval.status === "pending");
    if (command !== undefined) {
      pending = await decideFromCommand(this.approvals, runId, pending, command);
      approvals = await this.approvals.listForTask(runId);
    }
    if (pending.length > 0) {
      throw new KeelError(
        "APPROVAL_PENDING",
        `Run ${runId} still waits for ${pending.length === 1 ? "approval" : "approvals"} ${pending.map((a) => a.approval_id).join(", ")}.`,
        {
          details: { runId, approvals: pending.map((a) => a.approval_id) },
          hint: pending[0]?.how_to_approve ?? "Decide the approvals first.",
        },
      );
    }
    const decided = approvals.map((a) => ({ approval_id: a.approval_id, status: a.status }));
    return this.#execute(
      run,
      grant,
      graph,
      new Command({ resume: { decided } }),
      undefined,
      false,
      options.stream,
    );
  }

  /**
   * After a crash: continues a run from its last checkpoint (a run killed before its first
   * checkpoint starts again from its input). The run's own calls left `attempted` whose lease
   * lapsed become `unknown` first (another worker's call in flight is never touched), and a run
   * whose effect is in doubt pauses for an operator instead of redoing it. `options.stream`
   * streams the recovered run, as `start`'s does.
   *
   * @example
   * await runtime.recover(runId, graph, { stream: { streamMode: "updates", onChunk: (u) => log(u) } });
   */
  async recover(
    runId: string,
    graph: GovernedGraph,
    options: { stream?: GovernedStream } = {},
  ): Promise<GovernedRunResult> {
    const run = await this.runs.get(runId);
    const grant = await this.grantOf(runId);
    if (run.status === "succeeded" || run.status === "canceled" || run.status === "failed") {
      // Nothing to recover: the run finished before the process stopped.
      return { run, task: await this.#task(run, grant), result: null, waitingFor: [] };
    }
    await this.ledger.recoverInterrupted({ taskId: runId });
    const saved = await this.checkpointer.getTuple({ configurable: { thread_id: run.threadId } });
    const input = saved ? null : grant.input;
    return this.#execute(run, grant, graph, input, undefined, false, options.stream);
  }

  /**
   * Expires pending approvals past their time and resumes each paused run that waited for one,
   * so its step fails with `APPROVAL_EXPIRED`. Returns the approvals it expired.
   */
  async expireDue(graphFor: (run: RunRecord) => GovernedGraph | undefined): Promise<Approval[]> {
    const expired = await this.approvals.expireDue();
    const runIds = new Set(
      expired.map((a) => a.refs.task_id).filter((id): id is string => id !== null),
    );
    for (const runId of runIds) {
      const run = await this.runs.get(runId).catch(() => undefined);
      const graph = run && run.status === "paused" ? graphFor(run) : undefined;
      if (run && graph) await this.resume(runId, graph).catch(() => {});
    }
    return expired;
  }

  /** What a governed run was granted at start; NOT_FOUND for a run not started by a runtime. */
  async grantOf(runId: string): Promise<RunGrant> {
    const grant = await loadGrant(runtimeDb(this.store), runId);
    if (!grant) {
      throw new KeelError("RUN_NOT_FOUND", `Run "${runId}" is not a governed run.`, {
        details: { runId },
        hint: "Governed runs are started with GovernedRuntime.start(); list them with `keel runs list`.",
      });
    }
    return grant;
  }

  /** The run as the seed-003 Task. */
  async task(runId: string): Promise<Task> {
    return this.#task(await this.runs.get(runId), await this.grantOf(runId));
  }

  /** The run's steps as seed-003 Steps, in the order they started. */
  async stepsOf(runId: string): Promise<Step[]> {
    return (await this.steps.list(runId)).map(stepFromRow);
  }

  /**
   * Re-runs a run with every tool call answered from its ledger, never running a tool. Strict by
   * default: a call that is not there (or asks something else) stops the replay loudly. With
   * `counterfactual`, the replay starts from changed inputs, autonomy, risk or routing, stops at
   * the first call it cannot answer, and the report shows the first divergence and the
   * transition-by-transition diff.
   */
  async replay(
    runId: string,
    graph: GovernedGraph,
    options: {
      counterfactual?: {
        input?: unknown;
        autonomy?: AutonomyLevel;
        risk?: RiskLevel;
        route?: RouteResult;
      };
    } = {},
  ): Promise<ReplayReport> {
    const original = await this.grantOf(runId);
    const changes = options.counterfactual;
    const mode = changes ? "counterfactual" : "strict";
    const source = await ReplaySource.load(
      this.store,
      runId,
      mode,
      this.tools,
      (tool, input, action) => this.ledger.hashRequest(tool, input, action).hash,
    );
    const routing = changes?.route?.decision ?? original.routing;
    const traceId = this.#newId();
    const run = this.runs.draft({
      traceId,
      triggerEventId: original.eventId ?? undefined,
      autonomyLevelAtStart: changes?.autonomy ?? original.autonomy,
      labels: [`replay-of:${runId}`, mode],
    });
    const grant: RunGrant = {
      ...original,
      runId: run.id,
      traceId,
      autonomy: changes?.autonomy ?? original.autonomy,
      risk: changes?.risk ?? changes?.route?.decision.risk_level ?? original.risk,
      gateDemands: changes?.route?.gateDemands ?? original.gateDemands,
      approvalTtlSeconds: changes?.route?.approvalTtlSeconds ?? original.approvalTtlSeconds,
      routing,
      input: changes && "input" in changes ? changes.input : original.input,
      createdAt: this.#clock.now(),
    };
    await this.#tasks.create(run, grant, {
      type: "task.replay_started",
      summary: `${mode} replay of run ${runId} (trace ${original.traceId}); tools answered from the ledger`,
      outcome: "info",
      payload: { original_run_id: runId, original_trace_id: original.traceId },
    });
    let stoppedBy: ReplayReport["stoppedBy"] = null;
    try {
      const outcome = await this.#execute(run, grant, graph, grant.input, source);
      if (outcome.waitingFor.length > 0) {
        stoppedBy = { code: "APPROVAL_PENDING", message: "the replay paused" };
      }
    } catch (error) {
      const keel = toKeelError(error);
      stoppedBy = { code: keel.code, message: keel.message };
    }
    const diff = diffTransitions(
      [
        routeTransition(original.routing),
        ...stepTransitions(
          await this.steps.list(runId),
          source.originalCalls(),
          source.originalGates(),
        ),
      ],
      [
        routeTransition(routing),
        ...stepTransitions(await this.steps.list(run.id), source.asked, source.gates),
      ],
    );
    const firstDivergence = diff.find((row) => !row.same) ?? null;
    const report: ReplayReport = {
      originalRunId: runId,
      replayRunId: run.id,
      mode,
      identical: firstDivergence === null && stoppedBy === null,
      firstDivergence,
      diff,
      stoppedBy,
    };
    await this.audit.write(traceId, {
      stage: "execute",
      type: report.identical ? "task.replay_matched" : "task.replay_diverged",
      summary: report.identical
        ? `replay of run ${runId} matched it transition by transition`
        : `replay of run ${runId} diverged at ${firstDivergence?.at ?? "?"}${stoppedBy ? ` (${stoppedBy.code})` : ""}`,
      outcome: report.identical ? "success" : "failure",
      refs: { task_id: run.id },
      payload: { first_divergence: firstDivergence, stopped_by: stoppedBy },
    });
    if (
      mode === "strict" &&
      stoppedBy &&
      ["REPLAY_MISSING_CALL", "REPLAY_DIVERGED", "REPLAY_FAIL_LOUD"].includes(stoppedBy.code)
    ) {
      throw new KeelError(
        stoppedBy.code as "REPLAY_MISSING_CALL" | "REPLAY_DIVERGED" | "REPLAY_FAIL_LOUD",
        `Replay of run ${runId} failed: ${stoppedBy.message}`,
        { details: { report }, hint: "Use a counterfactual replay to see how the runs differ." },
      );
    }
    return report;
  }

  async #execute(
    run: RunRecord,
    grant: RunGrant,
    graph: GovernedGraph,
    input: unknown,
    replay: ReplaySource | undefined,
    retry = false,
    stream?: GovernedStream,
  ): Promise<GovernedRunResult> {
    const context: RunContext = {
      grant,
      tools: this.tools,
      ledger: this.ledger,
      approvals: this.approvals,
      audit: this.audit,
      steps: this.steps,
      clock: this.#clock,
      random: this.#random,
      policy: this.#policy,
      approvalTtlSeconds: this.#ttl,
      approvalCapability: this.#approvalCapability,
      replay,
    };
    // Each status change is committed with its task.* audit event (TaskRecords.write).
    const outcome = await this.runs.execute(
      run.id,
      (config) => {
        const governed = {
          ...config,
          configurable: { ...config.configurable, [GOVERNANCE_KEY]: context },
        };
        return stream
          ? invokeStreaming(graph, input, governed, stream)
          : graph.invoke(input, governed);
      },
      { retry },
    );
    const waitingFor = pausesOf(outcome.result);
    return {
      run: outcome.run,
      task: await this.#task(outcome.run, grant),
      result: outcome.result,
      waitingFor,
    };
  }

  async #task(run: RunRecord, grant: RunGrant): Promise<Task> {
    const steps = await this.steps.list(run.id);
    const current = [...steps].reverse().find((s) => s.status !== "succeeded");
    const wake = steps
      .filter((s) => s.status === "pending" && s.next_wake_at !== null)
      .map((s) => Number(s.next_wake_at));
    return {
      task_id: run.id,
      created_at: isoFromMs(run.createdAt),
      updated_at: isoFromMs(run.updatedAt),
      status: run.status,
      trigger_event_id: grant.eventId,
      trace_id: grant.traceId,
      current_step_id: current?.id ?? null,
      autonomy_level_at_start: grant.autonomy,
      labels: run.labels,
      next_wake_time: wake.length > 0 ? isoFromMs(Math.min(...wake)) : null,
      cancel_reason: run.cancelReason,
      error: run.error
        ? {
            code: run.error.code,
            message: run.error.message,
            retryable: run.error.retryable ?? false,
            details: run.error.details ?? {},
          }
        : null,
    };
  }

  #auditRefusal(
    run: { traceId: string; eventId: string | null; autonomy: AutonomyLevel; risk: RiskLevel },
    type: string,
    entry: { summary: string; payload?: unknown },
  ) {
    return this.audit.write(run.traceId, {
      stage: "execute",
      type,
      outcome: "failure",
      refs: { event_id: run.eventId },
      autonomyLevel: run.autonomy,
      riskLevel: run.risk,
      ...entry,
    });
  }
}

/** `leaseTtlMs` as given, when it is a positive whole number of milliseconds. */
function checkLeaseTtl(value: number | undefined): number | undefined {
  if (value === undefined || (Number.isSafeInteger(value) && value > 0)) return value;
  throw new KeelError(
    "INVALID_ARGUMENT",
    `leaseTtlMs must be a positive whole number of milliseconds, not ${String(value)}.`,
    {
      details: { leaseTtlMs: value },
      hint: "Pass e.g. leaseTtlMs: 30_000 (the default), or leave it out.",
    },
  );
}

/**
 * A governed run continues only from `paused` (or `running`, after a crash). A failed one is
 * final: its denial, expiry or error stands, and it is never retried (start a new run).
 */
function assertResumable(run: RunRecord): void {
  if (run.status === "paused" || run.status === "running") return;
  throw new KeelError(
    "RUN_INVALID_TRANSITION",
    `Run ${run.id} is ${run.status}; a governed run continues only while it is paused.`,
    {
      details: { runId: run.id, from: run.status, to: "running" },
      hint:
        run.status === "failed"
          ? "A failed governed run is final (its denial, expiry or error stands): start a new run."
          : "It has nothing left to do.",
    },
  );
}

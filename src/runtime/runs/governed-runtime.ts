import {
  type DurableSaver,
  PostgresSaver,
  type RunRecord,
  RunStore,
  SqliteSaver,
} from "../../checkpoint/index.js";
import { type Clock, KeelError, newId, systemClock, toKeelError } from "../../core/index.js";
import { Command, type RunConfig } from "../../graph/index.js";
import type { Store } from "../../store/index.js";
import { ApprovalService } from "../approvals/approval-service.js";
import { AuditWriter } from "../audit/audit-writer.js";
import type { Approval } from "../contracts/approval.js";
import type { AutonomyLevel, RiskLevel } from "../contracts/enums.js";
import type { MessageEvent } from "../contracts/message-event.js";
import type { Step, Task } from "../contracts/task.js";
import { isoFromMs } from "../db/codec.js";
import { runtimeDb } from "../db/tables.js";
import { ToolLedger } from "../ledger/tool-ledger.js";
import type { GatePolicy } from "../policy/gate-policy.js";
import { DEFAULT_APPROVAL_TTL_SECONDS } from "../policy/gate-specs.js";
import { type RandomSource, systemRandom } from "../policy/random.js";
import type { RouteResult } from "../routing/router.js";
import type { ToolProfile } from "../tools/profiles.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import type { GovernedPause } from "./node-context.js";
import {
  diffTransitions,
  type ReplayReport,
  routeTransition,
  stepTransitions,
} from "./replay-report.js";
import { ReplaySource } from "./replay-source.js";
import { type ApprovalCapability, GOVERNANCE_KEY, type RunContext } from "./run-context.js";
import { loadGrant, type RunGrant, saveGrant } from "./run-grants.js";
import { stepFromRow } from "./step-rows.js";
import { StepStore } from "./step-store.js";

/** A compiled graph, as the runtime drives it (Keel's CompiledStateGraph fits). */
export interface GovernedGraph {
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
}

/** How to start a governed run. */
export interface StartGovernedRun {
  graph: GovernedGraph;
  input: unknown;
  /** Snapshotted at start; never changes while the run lives. */
  autonomy: AutonomyLevel;
  /** The risk of the run's effectful calls (default: the routing's, else `low`). */
  risk?: RiskLevel;
  /** Capabilities the run holds (tools' `permissions` are checked against them). */
  capabilities?: readonly string[];
  profile?: ToolProfile;
  /** The event that triggered the run (its trace id becomes the run's). */
  event?: MessageEvent;
  /** How the event was routed; a `block` gate refuses to start the run. */
  route?: RouteResult;
  graphId?: string;
  labels?: string[];
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

  constructor(options: GovernedRuntimeOptions) {
    this.store = options.store;
    this.tools = options.tools;
    this.#clock = options.clock ?? systemClock;
    this.#newId = options.newId ?? newId;
    this.#random = options.random ?? systemRandom;
    this.#policy = options.policy;
    this.#ttl = options.approvalTtlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS;
    this.#approvalCapability = options.approvalCapability ?? (({ tool }) => `approve:${tool}`);
    this.audit = options.audit ?? new AuditWriter(this.store, { clock: this.#clock });
    this.ledger = new ToolLedger({
      store: this.store,
      tools: this.tools,
      audit: this.audit,
      clock: this.#clock,
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
    this.runs = new RunStore(this.checkpointer);
  }

  /** Creates the run (Task) and its grant, audits it, and executes it until it ends or pauses. */
  async start(options: StartGovernedRun): Promise<GovernedRunResult> {
    const decision = options.route?.decision ?? null;
    const traceId = options.event?.correlation.trace_id ?? decision?.trace_id ?? this.#newId();
    const eventId = options.event?.event_id ?? decision?.event_id ?? null;
    if (options.route?.gate.decision === "block") {
      await this.audit.write(traceId, {
        stage: "execute",
        type: "task.refused",
        summary: `run not started: routing blocked it (${options.route.gate.explanation})`,
        outcome: "failure",
        refs: { event_id: eventId },
        autonomyLevel: options.autonomy,
        riskLevel: decision?.risk_level ?? null,
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
    const run = await this.runs.create({
      traceId,
      triggerEventId: eventId ?? undefined,
      autonomyLevelAtStart: options.autonomy,
      graphId: options.graphId,
      labels: options.labels,
    });
    const grant: RunGrant = {
      runId: run.id,
      traceId,
      eventId,
      autonomy: options.autonomy,
      risk: options.risk ?? decision?.risk_level ?? "low",
      profile: options.profile ?? "default",
      capabilities: [...(options.capabilities ?? [])],
      routing: decision,
      handler: options.route?.handler ?? null,
      input: options.input,
      createdAt: this.#clock.now(),
    };
    await runtimeDb(this.store)
      .transaction()
      .execute(async (tx) => {
        await saveGrant(tx, grant);
        await this.audit.write(
          traceId,
          {
            stage: "execute",
            type: "task.created",
            summary: `run ${run.id} created at autonomy ${grant.autonomy} (risk ${grant.risk})${grant.handler ? ` for ${grant.handler}` : ""}`,
            outcome: "info",
            refs: { event_id: eventId, task_id: run.id },
            autonomyLevel: grant.autonomy,
            riskLevel: grant.risk,
          },
          tx,
        );
      });
    return this.#execute(run, grant, options.graph, options.input, undefined);
  }

  /**
   * Continues a paused run once what it waited for is settled. Refuses (`APPROVAL_PENDING`) while
   * an approval of the run is still pending; an approval that expired meanwhile is marked
   * `expired` and the step waiting for it fails with `APPROVAL_EXPIRED`.
   */
  async resume(runId: string, graph: GovernedGraph): Promise<GovernedRunResult> {
    const run = await this.runs.get(runId);
    const grant = await this.grantOf(runId);
    const approvals = await this.approvals.listForTask(runId);
    const pending = approvals.filter((approval) => approval.status === "pending");
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
    return this.#execute(run, grant, graph, new Command({ resume: { decided } }), undefined);
  }

  /**
   * After a crash: continues a run from its last checkpoint (a run killed before its first
   * checkpoint starts again from its input). Calls left `attempted` become `unknown` first, and a
   * run whose effect is in doubt pauses for an operator instead of redoing it.
   */
  async recover(runId: string, graph: GovernedGraph): Promise<GovernedRunResult> {
    const run = await this.runs.get(runId);
    const grant = await this.grantOf(runId);
    if (run.status === "succeeded" || run.status === "canceled") {
      // Nothing to recover: the run finished before the process stopped.
      return { run, task: await this.#task(run, grant), result: null, waitingFor: [] };
    }
    await this.ledger.recoverInterrupted();
    const saved = await this.checkpointer.getTuple({ configurable: { thread_id: run.threadId } });
    return this.#execute(run, grant, graph, saved ? null : grant.input, undefined);
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
    const source = await ReplaySource.load(this.store, runId, mode);
    const routing = changes?.route?.decision ?? original.routing;
    const traceId = this.#newId();
    const run = await this.runs.create({
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
      routing,
      input: changes && "input" in changes ? changes.input : original.input,
      createdAt: this.#clock.now(),
    };
    await runtimeDb(this.store)
      .transaction()
      .execute(async (tx) => {
        await saveGrant(tx, grant);
        await this.audit.write(
          traceId,
          {
            stage: "execute",
            type: "task.replay_started",
            summary: `${mode} replay of run ${runId} (trace ${original.traceId}); tools answered from the ledger`,
            outcome: "info",
            refs: { task_id: run.id, event_id: original.eventId },
            payload: { original_run_id: runId, original_trace_id: original.traceId },
          },
          tx,
        );
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
        ...stepTransitions(await this.steps.list(runId), source.originalCalls()),
      ],
      [routeTransition(routing), ...stepTransitions(await this.steps.list(run.id), source.asked)],
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
      ["REPLAY_MISSING_CALL", "REPLAY_DIVERGED"].includes(stoppedBy.code)
    ) {
      throw new KeelError(
        stoppedBy.code as "REPLAY_MISSING_CALL" | "REPLAY_DIVERGED",
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
    const resuming = run.status !== "pending";
    await this.#auditTask(
      grant,
      resuming ? "task.resumed" : "task.started",
      "info",
      `run ${run.id} ${resuming ? "resumed" : "started"}`,
    );
    let outcome: { run: RunRecord; result: unknown };
    try {
      outcome = await this.runs.execute(run.id, (config) =>
        graph.invoke(input, {
          ...config,
          configurable: { ...config.configurable, [GOVERNANCE_KEY]: context },
        }),
      );
    } catch (error) {
      const keel = toKeelError(error);
      await this.#auditTask(
        grant,
        "task.failed",
        "failure",
        `run ${run.id} failed (${keel.code}): ${keel.message}`,
      );
      throw error;
    }
    const waitingFor = pausesOf(outcome.result);
    if (outcome.run.status === "paused") {
      await this.#auditTask(
        grant,
        "task.paused",
        "info",
        `run ${run.id} paused: ${waitingFor.map((w) => (w.approval_id ? `approval ${w.approval_id} for ${w.tool}` : `operator for ${w.tool}`)).join(", ") || "interrupted"}`,
      );
    } else {
      await this.#auditTask(grant, "task.succeeded", "success", `run ${run.id} succeeded`);
    }
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
      // A run started without an event names itself as its trigger.
      trigger_event_id: grant.eventId ?? run.id,
      trace_id: grant.traceId,
      current_step_id: current?.id ?? null,
      autonomy_level_at_start: grant.autonomy,
      labels: run.labels,
      next_wake_time: wake.length > 0 ? isoFromMs(Math.min(...wake)) : null,
      cancel_reason: run.cancelReason,
      error: run.error
        ? { code: run.error.code, message: run.error.message, retryable: false, details: {} }
        : null,
    };
  }

  #auditTask(
    grant: RunGrant,
    type: string,
    outcome: "info" | "success" | "failure",
    summary: string,
  ) {
    return this.audit.write(grant.traceId, {
      stage: "execute",
      type,
      summary,
      outcome,
      refs: { task_id: grant.runId, event_id: grant.eventId },
      autonomyLevel: grant.autonomy,
    });
  }
}

/** The pauses a paused run reports in its result's `__interrupt__`. */
function pausesOf(result: unknown): GovernedPause[] {
  const interrupts = (result as { __interrupt__?: { value?: unknown }[] } | null)?.__interrupt__;
  if (!Array.isArray(interrupts)) return [];
  return interrupts
    .map((entry) => entry.value)
    .filter(
      (value): value is GovernedPause =>
        typeof value === "object" && value !== null && "kind" in value,
    );
}

import { sql } from "kysely";
import {
  type Clock,
  canonicalJson,
  KeelError,
  newId,
  sha256Hex,
  systemClock,
} from "../../core/index.js";
import type { Store } from "../../store/index.js";
import { getArtifact } from "../artifacts/artifact-store.js";
import { jsonText } from "../audit/audit-canonical.js";
import type { AuditWriter } from "../audit/audit-writer.js";
import type { ErrorDetail } from "../contracts/primitives.js";
import type { ToolCall, ToolResult } from "../contracts/tool-call.js";
import { runtimeDb, type ToolCallsTable } from "../db/tables.js";
import { ToolFailure } from "../tools/tool-failure.js";
import type { RegisteredTool, ToolRegistry } from "../tools/tool-registry.js";
import { DEFAULT_CALL_LEASE_MS, leaseLapsed, newLedgerOwner } from "./call-lease.js";
import { admitToolCall, admittedQuietly, auditRefusal } from "./ledger-admission.js";
import { LedgerRecorder } from "./ledger-recorder.js";
import { findCall, toolCallFromRow, toolResultFromRow } from "./ledger-rows.js";
import { ledgerWritesFor } from "./ledger-writes-for.js";
import { catchNow, type MaybePromise, thenNow } from "./maybe-promise.js";
import { type Redactor, redactSecrets, redactValue } from "./redact.js";
import { assertSettleable, assertSettledOutput } from "./settle-check.js";
import type { ToolCallRequest } from "./tool-call-request.js";

export type { ToolCallRequest } from "./tool-call-request.js";

/**
 * The partial status index's own condition, as a literal: SQLite uses a partial index only when
 * the query's WHERE implies the index's, which a bound parameter never does.
 */
const UNKNOWN = sql<boolean>`status = 'unknown'`;
const ATTEMPTED = sql<boolean>`status = 'attempted'`;

/** What a call came to. */
export interface ToolCallOutcome {
  toolCall: ToolCall;
  result: ToolResult;
  output: unknown;
  /** True when the result came from the ledger and the tool did not run. */
  replayed: boolean;
}

/** What a ToolLedger needs. */
export interface ToolLedgerOptions {
  store: Store;
  tools: ToolRegistry;
  audit: AuditWriter;
  clock?: Clock;
  newId?: () => string;
  /** Applied to every request before it is hashed and stored; secrets by key name by default. */
  redact?: Redactor;
  /**
   * The owner id written on this ledger's `attempted` rows (default `host:pid:random`, one per
   * ledger): recovery leaves a call alone while its owner's lease is live.
   */
  owner?: string;
  /** How long a call's lease lasts without renewal (default 30 s; renewed every third of it). */
  leaseTtlMs?: number;
}

/** Which calls `recoverInterrupted` looks at. */
export interface RecoveryScope {
  /** Only the calls of this run (Task); what `GovernedRuntime.recover` passes. */
  taskId?: string;
  /** Only the calls of this trace. */
  traceId?: string;
}

/**
 * Every tool call goes through the ledger. The call is recorded `attempted` in its own committed
 * write before the effect, with the sha256 of the redacted request and the caller's idempotency
 * key; then `succeeded` or `failed` with its latency and a result whose payload is an artifact.
 * A call whose key already `succeeded` returns the recorded result without running. A call found
 * `attempted` (its process died mid-call) becomes `unknown`: it is run again only for tools that
 * are retry-safe, otherwise `TOOL_CALL_UNKNOWN` asks an operator. Every refusal, outcome and
 * doubt is audited in the same transaction as the ledger change.
 *
 * @example
 * const ledger = new ToolLedger({ store, tools, audit });
 * const { output } = await ledger.call({ tool: "fs.append", input: { line: "x" },
 *   idempotencyKey: `${stepId}:append`, traceId, riskLevel: "low", autonomyLevel: "A3" });
 */
export class ToolLedger {
  readonly #store: Store;
  readonly #tools: ToolRegistry;
  readonly #audit: AuditWriter;
  readonly #clock: Clock;
  readonly #newId: () => string;
  readonly #redact: Redactor;
  readonly #recorder: LedgerRecorder;
  readonly #leaseTtlMs: number;
  /** Calls of this ledger under way: while there are several, their writes share commits. */
  #active = 0;
  /** This ledger's calls whose tools are running, by id: their leases are renewed. */
  readonly #inFlight = new Map<string, ToolCallsTable>();
  #renewal: NodeJS.Timeout | undefined;
  readonly #envelopes = new WeakMap<RegisteredTool, Envelope>();

  constructor(options: ToolLedgerOptions) {
    this.#store = options.store;
    this.#tools = options.tools;
    this.#audit = options.audit;
    this.#clock = options.clock ?? systemClock;
    this.#newId = options.newId ?? newId;
    this.#redact = options.redact ?? redactSecrets;
    this.#leaseTtlMs = options.leaseTtlMs ?? DEFAULT_CALL_LEASE_MS;
    this.#recorder = new LedgerRecorder(
      ledgerWritesFor(this.#store, this.#audit, () => this.#active > 1),
      this.#audit,
      this.#clock,
      this.#newId,
      { owner: options.owner ?? newLedgerOwner(), ttlMs: this.#leaseTtlMs },
    );
  }

  /** The owner id this ledger writes on the calls it attempts (`host:pid:random`). */
  get owner(): string {
    return this.#recorder.owner;
  }

  /** Calls a tool through the ledger (see the class comment for what happens when). */
  async call(request: ToolCallRequest): Promise<ToolCallOutcome> {
    // One async frame for the whole call, its only promise on SQLite when nothing else is under
    // way: the writes and a synchronous tool give their answers at once (each promise costs a
    // call more where an AsyncLocalStorage is enabled, as in every agent run).
    this.#active += 1;
    try {
      const outcome = this.#call(request);
      return outcome instanceof Promise ? await outcome : outcome;
    } finally {
      this.#active -= 1;
    }
  }

  #call(request: ToolCallRequest): MaybePromise<ToolCallOutcome> {
    const tool = admittedQuietly(this.#tools, request);
    return tool === undefined
      ? admitToolCall(this.#tools, this.#audit, request).then((admitted) =>
          this.#admitted(admitted, request),
        )
      : this.#admitted(tool, request);
  }

  #admitted(tool: RegisteredTool, request: ToolCallRequest): MaybePromise<ToolCallOutcome> {
    const { json: requestJson, hash: requestHash } = this.hashRequest(
      tool,
      request.input,
      request.action ?? tool.spec.name,
    );
    return thenNow(
      () => this.#recorder.attemptUnlessLive(tool, request, requestJson, requestHash),
      (attempt) =>
        attempt.recorded
          ? this.#run(tool, attempt.row, request)
          : this.#live(tool, attempt.row, request, requestHash),
    );
  }

  /** The key already has a live call: the same request or a conflict, then by its status. */
  async #live(
    tool: RegisteredTool,
    live: ToolCallsTable,
    request: ToolCallRequest,
    requestHash: string,
  ): Promise<ToolCallOutcome> {
    let row: ToolCallsTable = live;
    if (row.request_hash !== requestHash) {
      await auditRefusal(this.#audit, request, tool.id, "IDEMPOTENCY_CONFLICT", {
        existing_tool_call_id: row.id,
      });
      throw new KeelError(
        "IDEMPOTENCY_CONFLICT",
        `Idempotency key "${request.idempotencyKey}" of tool "${tool.id}" was used for a different request.`,
        {
          details: { toolCallId: row.id, idempotencyKey: request.idempotencyKey },
          hint: "Derive the key from the step and what it does, so that different calls get different keys.",
        },
      );
    }
    if (row.status === "succeeded") return this.#replay(row);
    if (row.status === "attempted") {
      // Another execution's call in flight is not in doubt: never mark it, never run it again.
      if (!leaseLapsed(row, this.#clock.now())) throw inFlight(row);
      row = await this.#recorder.markUnknown(
        row,
        "its process stopped before the outcome was recorded",
        undefined,
        true,
      );
    }
    // Another worker already runs it again (retry-safe tools): not ours to run twice at once.
    if (!leaseLapsed(row, this.#clock.now())) throw inFlight(row);
    if (!tool.retrySafe) await this.#holdForOperator(row);
    const claimed = await this.#recorder.claimUnknown(row, {
      type: "tool_call.retried",
      summary: `${tool.id}: retrying a call whose outcome was unknown (the tool is retry-safe)`,
      outcome: "info",
    });
    if (!claimed) {
      const current = await findCall(runtimeDb(this.#store), row.id);
      throw inFlight(current ?? row);
    }
    return this.#run(tool, claimed, request);
  }

  /**
   * A call's request as the ledger records it: redacted with the ledger's redaction, its canonical
   * JSON and `request_hash` (sha256 of that JSON). Approvals and replays compare requests by it.
   */
  hashRequest(
    tool: RegisteredTool,
    input: unknown,
    action: string,
  ): { redacted: Record<string, unknown>; json: string; hash: string } {
    if (this.#redact !== redactSecrets || input === undefined) {
      const redacted = this.#redact({ tool: tool.id, version: tool.spec.version, action, input });
      const json = canonicalJson(redacted);
      return { redacted, json, hash: sha256Hex(json) };
    }
    // The default redaction keeps the four outer keys (none names a secret): only the input is
    // walked, and the envelope's canonical JSON is written in its sorted key order.
    const redactedInput = redactValue(input);
    const redacted = { tool: tool.id, version: tool.spec.version, action, input: redactedInput };
    const envelope = this.#envelope(tool, action);
    const json = `${envelope.head}${canonicalJson(redactedInput)}${envelope.tail}`;
    return { redacted, json, hash: sha256Hex(json) };
  }

  /**
   * A tool's request envelope as JSON text before and after its input, for the last action it
   * was called with: quoted once, not on every call.
   */
  #envelope(tool: RegisteredTool, action: string): Envelope {
    let envelope = this.#envelopes.get(tool);
    if (envelope === undefined || envelope.action !== action) {
      envelope = {
        action,
        head: `{"action":${jsonText(action)},"input":`,
        tail: `,"tool":${jsonText(tool.id)},"version":${jsonText(tool.spec.version)}}`,
      };
      this.#envelopes.set(tool, envelope);
    }
    return envelope;
  }

  /** A recorded call and its result. */
  async get(toolCallId: string): Promise<{ toolCall: ToolCall; result: ToolResult | null }> {
    const row = await this.#find(toolCallId);
    return { toolCall: toolCallFromRow(row), result: toolResultFromRow(row) };
  }

  async #find(toolCallId: string): Promise<ToolCallsTable> {
    const row = await findCall(runtimeDb(this.#store), toolCallId);
    if (!row) {
      throw new KeelError("TOOL_CALL_NOT_FOUND", `No tool call "${toolCallId}" in the ledger.`, {
        details: { toolCallId },
      });
    }
    return row;
  }

  /** Calls whose outcome is unknown: what an operator must look at. */
  async listUnknown(): Promise<ToolCall[]> {
    const rows = await runtimeDb(this.#store)
      .selectFrom("state_tool_calls")
      .selectAll()
      .where(UNKNOWN)
      .orderBy("created_at")
      .execute();
    return rows.map(toolCallFromRow);
  }

  /**
   * After a crash: the calls still `attempted` (no outcome recorded) whose lease has lapsed — the
   * owner's process died, or the lease expired without renewal — become `unknown` and are
   * audited. A call whose owner still holds its lease is in flight and is left alone. Scope it
   * to the run being recovered (`{ taskId }`, found through the task index); without a task it
   * reads the whole ledger, since a call is only ever briefly `attempted` and indexing that state
   * would cost every call two more page writes. Returns the calls marked.
   */
  async recoverInterrupted(scope: RecoveryScope = {}): Promise<ToolCall[]> {
    let query = runtimeDb(this.#store).selectFrom("state_tool_calls").selectAll().where(ATTEMPTED);
    if (scope.taskId !== undefined) query = query.where("task_id", "=", scope.taskId);
    if (scope.traceId !== undefined) query = query.where("trace_id", "=", scope.traceId);
    const rows = await query.orderBy("created_at").execute();
    const marked: ToolCall[] = [];
    for (const row of rows) {
      if (!leaseLapsed(row, this.#clock.now())) continue;
      try {
        const unknown = await this.#recorder.markUnknown(
          row,
          "found without an outcome on recovery, its owner's lease lapsed",
          undefined,
          true,
        );
        marked.push(toolCallFromRow(unknown));
      } catch (error) {
        // The owner renewed its lease or recorded the outcome meanwhile: not ours to mark.
        if (error instanceof KeelError && error.code === "ILLEGAL_TRANSITION") continue;
        throw error;
      }
    }
    return marked;
  }

  /**
   * An operator settles a call whose outcome was unknown, after checking the world: `succeeded`
   * (with the output the effect produced, checked against the tool's output schema when this
   * ledger's registry has the tool) or `failed` (the effect did not happen). Any other call is
   * refused (`assertSettleable`): an `attempted` one may still be in flight.
   */
  async resolveUnknown(
    toolCallId: string,
    resolution: { outcome: "succeeded" | "failed"; output?: unknown; by: string; reason: string },
  ): Promise<{ toolCall: ToolCall; result: ToolResult | null }> {
    const row = await this.#find(toolCallId);
    const toolCall = toolCallFromRow(row);
    assertSettleable(toolCall, resolution.outcome);
    if (resolution.outcome === "succeeded" && this.#tools.has(row.tool_name)) {
      assertSettledOutput(this.#tools.get(row.tool_name), toolCall, resolution.output ?? null);
    }
    const latencyMs = null;
    if (resolution.outcome === "succeeded") {
      await this.#recorder.recordSucceeded(row, resolution.output ?? null, latencyMs, {
        type: "tool_call.resolved",
        summary: `${row.tool_name}: ${resolution.by} settled an unknown call as succeeded: ${resolution.reason}`,
        outcome: "success",
      });
    } else {
      await this.#recorder.recordFailed(
        row,
        {
          code: "OPERATOR_RESOLVED_FAILED",
          message: resolution.reason,
          retryable: true,
          details: { by: resolution.by },
        },
        latencyMs,
        {
          type: "tool_call.resolved",
          summary: `${row.tool_name}: ${resolution.by} settled an unknown call as failed: ${resolution.reason}`,
          outcome: "failure",
        },
      );
    }
    return this.get(toolCallId);
  }

  #run(
    tool: RegisteredTool,
    row: ToolCallsTable,
    request: ToolCallRequest,
  ): MaybePromise<ToolCallOutcome> {
    const started = this.#clock.now();
    // A worker frozen between its claim and here (a stopped process, a long pause) does not act:
    // once half its lease may have passed, the claim is re-checked against the ledger first
    // (`TOOL_CALL_LATE`, audited, when it is lost). Sooner, nobody can have taken the call.
    if (tool.hasEffects && this.#claimMayHaveLapsed(row, started)) {
      return this.#checkClaim(row).then(() => this.#perform(tool, row, request, started));
    }
    return this.#perform(tool, row, request, started);
  }

  /** Runs the tool and records its outcome; a synchronous tool's, at once when the write is. */
  #perform(
    tool: RegisteredTool,
    row: ToolCallsTable,
    request: ToolCallRequest,
    started: number,
  ): MaybePromise<ToolCallOutcome> {
    this.#holdLease(row);
    let output: unknown;
    try {
      output = tool.handler(request.input, {
        idempotencyKey: row.idempotency_key,
        toolCallId: row.id,
        traceId: row.trace_id,
        fence: row.fence === null ? 0 : Number(row.fence),
        checkClaim: () => this.#checkClaim(row),
      });
    } catch (error) {
      return this.#threw(tool, row, error, started);
    }
    // Awaited only when it is a promise (or thenable): a synchronous tool's answer is recorded
    // without the promises an await makes.
    if (!isThenable(output)) return this.#answered(tool, row, output, started);
    return Promise.resolve(output).then(
      (answer) => this.#answered(tool, row, answer, started),
      (error: unknown) => this.#threw(tool, row, error, started),
    );
  }

  /** The tool threw (or its promise rejected): recorded failed, or unknown when in doubt. */
  async #threw(
    tool: RegisteredTool,
    row: ToolCallsTable,
    error: unknown,
    started: number,
  ): Promise<never> {
    this.#inFlight.delete(row.id);
    // The tool found its claim lost before acting (already audited): nothing to record.
    if (error instanceof KeelError && error.code === "TOOL_CALL_LATE") throw error;
    const latency = Math.max(0, this.#clock.now() - started);
    const definite = error instanceof ToolFailure || !tool.hasEffects;
    if (!definite) {
      await this.#orLate(row, { outcome: "unknown", error: describe(error) }, () =>
        this.#recorder.markUnknown(
          row,
          `the tool threw without saying whether the effect happened: ${describe(error)}`,
          latency,
        ),
      );
      throw new KeelError(
        "TOOL_CALL_UNKNOWN",
        `Tool "${tool.id}" failed in a way that leaves its effect in doubt; the call is recorded unknown.`,
        {
          cause: error,
          details: { toolCallId: row.id, tool: tool.id },
          hint: tool.retrySafe
            ? "The tool is retry-safe: calling again with the same idempotency key runs it again."
            : settleHint(row),
        },
      );
    }
    const detail: ErrorDetail =
      error instanceof ToolFailure
        ? {
            code: error.code,
            message: error.message,
            retryable: error.retryable,
            details: error.details,
          }
        : { code: "TOOL_ERROR", message: describe(error), retryable: true, details: {} };
    await this.#orLate(row, { outcome: "failed", error: detail }, () =>
      this.#recorder.recordFailed(row, detail, latency, {
        type: "tool_call.failed",
        summary: `${tool.id}: ${row.action} failed (${detail.code}): ${detail.message}`,
        outcome: "failure",
      }),
    );
    throw new KeelError("TOOL_CALL_FAILED", `Tool "${tool.id}" failed: ${detail.message}`, {
      cause: error,
      details: { toolCallId: row.id, tool: tool.id, error: detail },
      hint: detail.retryable
        ? "The step's retry policy may run it again."
        : "Fix the cause; retrying will not help.",
    });
  }

  /** The tool answered: its output checked against its schema, then recorded. */
  #answered(
    tool: RegisteredTool,
    row: ToolCallsTable,
    output: unknown,
    started: number,
  ): MaybePromise<ToolCallOutcome> {
    this.#inFlight.delete(row.id);
    const latency = Math.max(0, this.#clock.now() - started);
    const problems = tool.validateOutput(output);
    if (problems.length > 0) return this.#invalidOutput(tool, row, problems, latency);
    return thenNow(
      () =>
        this.#orLate(row, { outcome: "succeeded", output }, () =>
          this.#recorder.recordSucceeded(row, output, latency, {
            type: "tool_call.succeeded",
            summary: `${tool.id}: ${row.action} succeeded in ${latency} ms`,
            outcome: "success",
          }),
        ),
      // Named, not spread: V8 cannot cache the store of `replayed` on the spread's copy, and
      // every call went to the runtime for it.
      (recorded) => ({
        toolCall: recorded.toolCall,
        result: recorded.result,
        output,
        replayed: false,
      }),
    );
  }

  /** The tool's output fails its schema: recorded unknown (it has effects) or failed. */
  async #invalidOutput(
    tool: RegisteredTool,
    row: ToolCallsTable,
    problems: readonly { path: string; message: string }[],
    latency: number,
  ): Promise<never> {
    const reason = `the output fails the tool's output schema (${problems.map((p) => `${p.path}: ${p.message}`).join("; ")})`;
    if (tool.hasEffects) {
      // The effect may well have happened; a bad answer is not a clean failure.
      await this.#orLate(row, { outcome: "unknown", error: reason }, () =>
        this.#recorder.markUnknown(row, reason, latency),
      );
    } else {
      await this.#orLate(row, { outcome: "failed", error: reason }, () =>
        this.#recorder.recordFailed(
          row,
          {
            code: "TOOL_OUTPUT_INVALID",
            message: reason,
            retryable: false,
            details: { problems },
          },
          latency,
          { type: "tool_call.failed", summary: `${tool.id}: ${reason}`, outcome: "failure" },
        ),
      );
    }
    throw new KeelError(
      "TOOL_OUTPUT_INVALID",
      `Tool "${tool.id}" returned output that fails its schema.`,
      {
        details: { toolCallId: row.id, tool: tool.id, problems },
        hint: "Fix the tool so that its output matches output_schema.",
      },
    );
  }

  /**
   * Records an outcome — unless the call moved on while the tool ran (an operator settled it,
   * recovery marked it unknown, another worker took it over): then the outcome is late. It is
   * never written over what is there, nor dropped: it is audited as `tool_call.late` (with the
   * outcome as payload) and the caller gets `TOOL_CALL_LATE`.
   */
  #orLate<T>(
    row: ToolCallsTable,
    late: LateOutcome,
    write: () => MaybePromise<T>,
  ): MaybePromise<T> {
    // A rejection handler rather than an async frame: the outcome's write is the hot path.
    return catchNow(write, async (error: unknown) => {
      const moved =
        error instanceof KeelError &&
        error.code === "ILLEGAL_TRANSITION" &&
        (error.details as { expected?: unknown } | undefined)?.expected === row.status;
      if (!moved) throw error;
      throw await this.#late(row, late);
    });
  }

  /** Whether the claim on `row` may have lapsed by `now`: past half its lease, or leaseless. */
  #claimMayHaveLapsed(row: ToolCallsTable, now: number): boolean {
    if (row.lease_expires_at === null) return true;
    return now >= Number(row.lease_expires_at) - this.#leaseTtlMs / 2;
  }

  /** The claim check (`ToolCallContext.checkClaim`): still ours, same fence, still leased? */
  async #checkClaim(row: ToolCallsTable): Promise<void> {
    const current = await findCall(runtimeDb(this.#store), row.id);
    const held =
      current !== undefined &&
      current.status === row.status &&
      current.lease_owner === this.#recorder.owner &&
      (row.fence === null || Number(current.fence) === Number(row.fence)) &&
      current.lease_expires_at !== null &&
      Number(current.lease_expires_at) > this.#clock.now();
    if (!held) throw await this.#late(row, { outcome: "not-performed" });
  }

  /** Audits a late outcome (`tool_call.late`) and returns the TOOL_CALL_LATE to throw. */
  async #late(row: ToolCallsTable, late: LateOutcome): Promise<KeelError> {
    this.#inFlight.delete(row.id);
    const current = await findCall(runtimeDb(this.#store), row.id);
    const now = current?.status ?? "missing";
    const what =
      late.outcome === "not-performed"
        ? "checked its claim before the effect and found it lost: the effect was not performed"
        : `reported ${late.outcome} after the call had moved on`;
    const contradicts =
      (late.outcome === "succeeded" && now === "failed") ||
      (late.outcome !== "succeeded" && late.outcome !== "not-performed" && now === "succeeded");
    await this.#recorder.audited(row, {
      type: "tool_call.late",
      summary: `${row.tool_name}: a late worker (${this.#recorder.owner}) ${what}; the ledger says ${now}${contradicts ? " — the two disagree: check the world" : ""}`,
      outcome: late.outcome === "not-performed" ? "info" : "failure",
      payload: { late_outcome: late.outcome, ledger_status: now, ...late },
    });
    return new KeelError(
      "TOOL_CALL_LATE",
      `The call of "${row.tool_name}" (${row.id}) is no longer this worker's: its lease lapsed and the call is now ${now}. ${late.outcome === "not-performed" ? "The effect was not performed." : `Its late outcome (${late.outcome}) is audited, not recorded over the ledger.`}`,
      {
        details: { toolCallId: row.id, tool: row.tool_name, ledgerStatus: now, late: late.outcome },
        hint: contradicts
          ? `The late outcome contradicts the ledger: check the world, then see \`keel audit ${row.trace_id}\` and \`keel ledger show ${row.id}\`.`
          : `Nothing to do here; \`keel ledger show ${row.id}\` shows the call.`,
      },
    );
  }

  /**
   * Keeps this ledger's leases on its `attempted` calls while their tools run, so that recovery
   * in another process never takes a slow call for a dead one. One timer per ledger renews every
   * call in flight each third of the lease (a call is renewed within that of its start); it stops
   * itself once nothing is in flight, so a stream of short calls creates no timer per call.
   */
  #holdLease(row: ToolCallsTable): void {
    if (row.status === "succeeded" || row.status === "failed") return;
    if (row.lease_owner !== this.#recorder.owner) return;
    this.#inFlight.set(row.id, row);
    if (this.#renewal === undefined) {
      this.#renewal = setInterval(
        () => this.#renewAll(),
        Math.max(10, Math.floor(this.#leaseTtlMs / 3)),
      );
      this.#renewal.unref();
    }
  }

  #renewAll(): void {
    if (this.#inFlight.size === 0) {
      clearInterval(this.#renewal);
      this.#renewal = undefined;
      return;
    }
    for (const row of this.#inFlight.values()) {
      this.#recorder.renewLease(row).then(
        (held) => {
          if (!held) this.#inFlight.delete(row.id);
        },
        () => {},
      );
    }
  }

  async #holdForOperator(row: ToolCallsTable): Promise<never> {
    await this.#recorder.audited(row, {
      type: "tool_call.held",
      summary: `${row.tool_name}: outcome unknown and the tool is not retry-safe; waiting for an operator`,
      outcome: "failure",
    });
    throw new KeelError(
      "TOOL_CALL_UNKNOWN",
      `The earlier call of "${row.tool_name}" with idempotency key "${row.idempotency_key}" has an unknown outcome, and the tool is not safe to retry.`,
      {
        details: { toolCallId: row.id, tool: row.tool_name, idempotencyKey: row.idempotency_key },
        hint: `${settleHint(row)} The run stays paused until then.`,
      },
    );
  }

  async #replay(row: ToolCallsTable): Promise<ToolCallOutcome> {
    const db = runtimeDb(this.#store);
    const output =
      row.result_artifact_id === null ? null : await getArtifact(db, row.result_artifact_id);
    await this.#recorder.audited(row, {
      type: "tool_call.replayed",
      summary: `${row.tool_name}: answered from the ledger (already succeeded), not run again`,
      outcome: "info",
    });
    const result = toolResultFromRow(row);
    if (!result)
      throw new KeelError("STORE_CORRUPT", `Tool call "${row.id}" succeeded without a result.`);
    return { toolCall: toolCallFromRow(row), result, output, replayed: true };
  }
}

/** A request's canonical JSON around its input (`ToolLedger.hashRequest`), for one action. */
interface Envelope {
  action: string;
  head: string;
  tail: string;
}

/** What a worker learned after its call moved on. */
type LateOutcome =
  | { outcome: "succeeded"; output: unknown }
  | { outcome: "failed"; error: unknown }
  | { outcome: "unknown"; error: string }
  | { outcome: "not-performed" };

function inFlight(row: ToolCallsTable): KeelError {
  return new KeelError(
    "ILLEGAL_TRANSITION",
    `The call of "${row.tool_name}" with idempotency key "${row.idempotency_key}" is in flight in another execution (${row.lease_owner}); it is not in doubt.`,
    {
      details: {
        toolCallId: row.id,
        tool: row.tool_name,
        leaseOwner: row.lease_owner,
        leaseExpiresAt: row.lease_expires_at === null ? null : Number(row.lease_expires_at),
      },
      hint: "Another worker is handling this call; do not run it twice. Its outcome is recorded when it finishes, or it becomes unknown once its lease lapses.",
    },
  );
}

/** What an operator does about a call in doubt. */
function settleHint(row: ToolCallsTable): string {
  return `An operator must check whether the effect happened and settle the call: keel ledger resolve ${row.id} --outcome succeeded|failed --reason "…" (or ToolLedger.resolveUnknown).`;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    ((typeof value === "object" && value !== null) || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

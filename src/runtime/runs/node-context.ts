import { isKeelError, KeelError } from "../../core/index.js";
import { interrupt } from "../../graph/index.js";
import type { Approval } from "../contracts/approval.js";
import { higherRisk, type RiskLevel } from "../contracts/enums.js";
import type { StepsTable } from "../db/tables.js";
import { admitToolCall } from "../ledger/ledger-admission.js";
import type { ToolCallRequest } from "../ledger/tool-call-request.js";
import type { ToolCallOutcome } from "../ledger/tool-ledger.js";
import { decideGate, type GateOutcome } from "../policy/gate-policy.js";
import type { RegisteredTool } from "../tools/tool-registry.js";
import type { RunContext } from "./run-context.js";

/** Options of one tool call made by a node. */
export interface NodeCallOptions {
  /** A stable name for the call within the step (default: its position, 0, 1, …). */
  key?: string;
  action?: string;
  /** The call's risk: the run's risk by default; a lower one is raised to it. */
  risk?: RiskLevel;
}

/** What a paused run is waiting for, as the interrupt value the run's caller sees. */
export interface GovernedPause {
  kind: "approval" | "operator";
  tool: string;
  step: string;
  approval_id?: string;
  tool_call_id?: string;
  how_to_continue: string;
  /** Why an earlier answer did not do (an approval of another request: `APPROVAL_MISMATCH`). */
  refused?: { code: string; message: string };
}

/**
 * What a governed node receives: its step, and the tools it may call. Every call goes through
 * the gate (autonomy snapshot × risk) and the ledger, with an idempotency key derived from the
 * step (`<run>:<node>#<visit>:<n>`), so a node re-run after a pause or a crash makes the same
 * calls with the same keys and gets the recorded results back.
 */
export class NodeContext {
  readonly #run: RunContext;
  #step: StepsTable;
  /** The step's move to `paused`, once a call of this node has started it. */
  #pausing: Promise<void> | undefined;
  #counter = 0;

  constructor(run: RunContext, step: StepsTable) {
    this.#run = run;
    this.#step = step;
  }

  /** The run's trace id (every audit event of the run carries it). */
  get traceId(): string {
    return this.#run.grant.traceId;
  }

  /** The run (the seed's Task) this node belongs to. */
  get runId(): string {
    return this.#run.grant.runId;
  }

  /** The step record of this node execution. */
  get step(): Readonly<StepsTable> {
    return this.#step;
  }

  /** Saves resumability data on the step (the seed's `Step.checkpoint`). */
  async saveCheckpoint(data: Record<string, unknown>): Promise<void> {
    this.#step = await this.#run.steps.saveCheckpoint(this.#step, data);
  }

  /**
   * Calls a tool: gate, then ledger. `allow` runs it; `preview` records a dry run first (a tool
   * without one is escalated to `confirm`); `confirm` asks for an Approval and pauses the run
   * until a person decides (then runs it, or throws `APPROVAL_DENIED` / `APPROVAL_EXPIRED`);
   * `block` throws `GATE_BLOCKED`. An effect in doubt that only an operator can settle pauses
   * the run too.
   *
   * @example
   * const refunds = governedNode(async (state, ctx) => {
   *   const receipt = await ctx.call("payments.refund", { order: state.order, amount: 250 });
   *   return { receipt };
   * });
   */
  async call(tool: string, input: unknown, options: NodeCallOptions = {}): Promise<unknown> {
    return (await this.callWithOutcome(tool, input, options)).output;
  }

  /** Like `call`, with the ledger entry (or, in a replay, null). */
  async callWithOutcome(
    toolId: string,
    input: unknown,
    options: NodeCallOptions = {},
  ): Promise<{ output: unknown; outcome: ToolCallOutcome | null }> {
    const run = this.#run;
    const place = `${this.#step.name}#${this.#step.visit}:${options.key ?? String(this.#counter++)}`;
    const key = `${run.grant.runId}:${place}`;
    const tool = run.tools.has(toolId) ? run.tools.get(toolId) : undefined;
    const action = options.action ?? tool?.spec.name ?? toolId;
    // The run's risk is a floor: node code may raise a call's risk, never lower it.
    const risk = higherRisk(options.risk ?? run.grant.risk, run.grant.risk);
    if (run.replay && tool) {
      // A replay's gate is decided, and compared with the original's, but asks nobody.
      if (tool.hasEffects) {
        run.replay.gate(place, tool, this.#decideGate(risk));
      }
      const output = await run.replay.answer(place, tool, input, action, run.grant.traceId);
      return { output, outcome: null };
    }
    const request: ToolCallRequest = {
      tool: toolId,
      input,
      idempotencyKey: key,
      traceId: run.grant.traceId,
      action: options.action,
      taskId: run.grant.runId,
      stepId: this.#step.id,
      eventId: run.grant.eventId,
      riskLevel: risk,
      autonomyLevel: run.grant.autonomy,
      capabilities: run.grant.capabilities,
      profile: run.grant.profile,
    };
    // Admission before the gate: nobody is asked to approve a call that would be refused anyway
    // (unknown tool, forbidden profile, missing permission, invalid input); refusals are audited.
    const admitted = await admitToolCall(run.tools, run.audit, request, { announce: false });
    if (admitted.hasEffects) {
      await this.#passGate(admitted, input, key, risk, action);
    }
    for (;;) {
      try {
        const outcome = await run.ledger.call(request);
        return { output: outcome.output, outcome };
      } catch (error) {
        if (!(isKeelError(error) && error.code === "TOOL_CALL_UNKNOWN")) throw error;
        const details = error.details as { toolCallId?: string } | undefined;
        // The run waits for an operator to settle the call, then tries again with the same key.
        await this.#pause(`the outcome of ${toolId} is unknown; an operator must settle it`, {
          kind: "operator",
          tool: toolId,
          step: this.#step.name,
          tool_call_id: details?.toolCallId,
          how_to_continue: `Check whether the effect happened, then settle the call: keel ledger resolve ${details?.toolCallId ?? "<tool_call_id>"} --outcome succeeded --output '<json>' --reason "<what you checked>"   (or: --outcome failed --reason "<what you checked>"; ToolLedger.resolveUnknown in code). A run started with its application module (start({ app })) continues then; otherwise resume run ${run.grant.runId}.`,
        });
      }
    }
  }

  async #passGate(
    tool: RegisteredTool,
    input: unknown,
    key: string,
    risk: RiskLevel,
    action: string,
  ): Promise<void> {
    const run = this.#run;
    const gate = this.#decideGate(risk);
    if (gate.decision === "allow") return;
    if (gate.decision === "block") {
      await this.#auditGate(
        "gate.blocked",
        `${tool.id}: blocked — ${gate.explanation}`,
        "failure",
        risk,
        {
          tool: tool.id,
          idempotency_key: key,
        },
      );
      throw new KeelError("GATE_BLOCKED", `The gate blocks "${tool.id}": ${gate.explanation}`, {
        details: { tool: tool.id, risk, autonomy: run.grant.autonomy },
        hint: "Run it at a higher autonomy level, lower its risk, or have a person do it.",
      });
    }
    if (gate.decision === "preview" && tool.dryRun) {
      const preview = await tool.dryRun(input, {
        idempotencyKey: key,
        toolCallId: "",
        traceId: run.grant.traceId,
        // A preview acts on nothing: there is no claim to lose, nor a fence to pass.
        fence: 0,
        checkClaim: async () => {},
      });
      await this.#auditGate(
        "gate.preview",
        `${tool.id}: dry run recorded before the call`,
        "info",
        risk,
        {
          tool: tool.id,
          idempotency_key: key,
          input: run.ledger.hashRequest(tool, input, action).redacted.input,
          preview,
        },
      );
      return;
    }
    await this.#awaitApproval(tool, input, key, risk, action, gate);
  }

  /** The gate at the run's autonomy × `risk`, with routing's rule demands (they only tighten). */
  #decideGate(risk: RiskLevel): GateOutcome {
    const run = this.#run;
    return decideGate({
      autonomy: run.grant.autonomy,
      risk,
      policy: run.policy,
      tightenings: run.grant.gateDemands,
    });
  }

  async #awaitApproval(
    tool: RegisteredTool,
    input: unknown,
    key: string,
    risk: RiskLevel,
    action: string,
    gate: GateOutcome,
  ): Promise<void> {
    const run = this.#run;
    const request = run.ledger.hashRequest(tool, input, action);
    let approval: Approval | undefined = await run.approvals.findForGate(run.grant.runId, key);
    let refused: KeelError | undefined;
    if (
      approval?.status === "approved" &&
      approval.request_hash !== null &&
      approval.request_hash !== request.hash
    ) {
      // The node asks for something other than what was approved: the approval does not cover it.
      refused = await this.#refuseMismatch(approval, tool, request.hash, risk);
      approval = undefined;
    }
    if (!approval) {
      const why =
        gate.decision === "preview"
          ? `${gate.explanation} "${tool.id}" cannot dry-run, so a person must confirm it.`
          : gate.explanation;
      approval = await run.approvals.request({
        traceId: run.grant.traceId,
        refs: { eventId: run.grant.eventId, taskId: run.grant.runId, stepId: this.#step.id },
        riskLevel: risk,
        autonomyLevel: run.grant.autonomy,
        what: { ...request.redacted, idempotency_key: key },
        why: refused ? `${why} ${refused.message}` : why,
        requiredCapability: run.approvalCapability({ tool: tool.id, risk }),
        // Routing's approval lifetime when it gave one, else the runtime's.
        ttlSeconds: run.grant.approvalTtlSeconds ?? run.approvalTtlSeconds,
        gateKey: key,
        requestHash: request.hash,
      });
    }
    for (;;) {
      if (approval.status === "approved") return;
      if (approval.status === "denied") {
        throw new KeelError(
          "APPROVAL_DENIED",
          `${approval.decision.by ?? "An operator"} denied "${tool.id}"${approval.decision.reason ? `: ${approval.decision.reason}` : "."}`,
          {
            details: { approvalId: approval.approval_id, tool: tool.id },
            hint: "The action must not run. Change the request and start a new run if it is still needed.",
          },
        );
      }
      if (approval.status === "expired") {
        throw new KeelError(
          "APPROVAL_EXPIRED",
          `Nobody decided the approval for "${tool.id}" before it expired at ${approval.expires_at}; the step fails and the action did not run.`,
          {
            details: { approvalId: approval.approval_id, tool: tool.id },
            hint: "Start the run again (or retry it) to ask for a new approval.",
          },
        );
      }
      await this.#pause(`waiting for approval ${approval.approval_id}`, {
        kind: "approval",
        tool: tool.id,
        step: this.#step.name,
        approval_id: approval.approval_id,
        how_to_continue: approval.how_to_approve,
        ...(refused ? { refused: { code: refused.code, message: refused.message } } : {}),
      });
      approval = await run.approvals.get(approval.approval_id);
    }
  }

  /** Audits an approval that does not cover the request made (`APPROVAL_MISMATCH`). */
  async #refuseMismatch(
    approval: Approval,
    tool: RegisteredTool,
    requestHash: string,
    risk: RiskLevel,
  ): Promise<KeelError> {
    const refused = new KeelError(
      "APPROVAL_MISMATCH",
      `Approval ${approval.approval_id} allowed a different request of "${tool.id}" than the one now made; it does not cover this one, so a new approval is asked.`,
      {
        details: {
          approvalId: approval.approval_id,
          approvedRequestHash: approval.request_hash,
          requestHash,
        },
        hint: "Decide the new approval; its `what` shows the request as it is now.",
      },
    );
    await this.#auditGate(
      "gate.approval_mismatch",
      `${tool.id}: ${refused.message}`,
      "failure",
      risk,
      {
        code: refused.code,
        approval_id: approval.approval_id,
        approved_request_hash: approval.request_hash,
        request_hash: requestHash,
      },
    );
    return refused;
  }

  /**
   * Pauses the run with the engine's interrupt. When the run is resumed, the node runs again from
   * its start and this returns (the caller then re-reads what it was waiting for).
   */
  async #pause(why: string, value: GovernedPause): Promise<void> {
    try {
      interrupt(value);
    } catch (pausing) {
      // Calls of the node under way together may pause at once (two calls in doubt): the step
      // moves once; the others wait for that move instead of finding the step no longer running.
      this.#pausing ??= this.#pauseStep(why);
      await this.#pausing;
      throw pausing;
    }
  }

  async #pauseStep(why: string): Promise<void> {
    if (this.#step.status === "running") this.#step = await this.#run.steps.pause(this.#step, why);
  }

  #auditGate(
    type: string,
    summary: string,
    outcome: "info" | "failure",
    risk: RiskLevel,
    payload: unknown,
  ): Promise<unknown> {
    return this.#run.audit.write(this.#run.grant.traceId, {
      stage: "gate",
      type,
      summary,
      outcome,
      refs: {
        task_id: this.#run.grant.runId,
        step_id: this.#step.id,
        event_id: this.#run.grant.eventId,
      },
      riskLevel: risk,
      autonomyLevel: this.#run.grant.autonomy,
      payload,
    });
  }
}

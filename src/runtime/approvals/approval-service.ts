import type { Transaction } from "kysely";
import { type Clock, canonicalJson, KeelError, newId, systemClock } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import type { AuditEntry, AuditWriter } from "../audit/audit-writer.js";
import type { Approval } from "../contracts/approval.js";
import type { ApprovalStatus, AutonomyLevel, RiskLevel } from "../contracts/enums.js";
import { autonomyToDb, isoFromMs } from "../db/codec.js";
import { type ApprovalsTable, type RuntimeDatabase, runtimeDb } from "../db/tables.js";
import { DEFAULT_APPROVAL_TTL_SECONDS } from "../policy/gate-specs.js";
import { assertTransition } from "../policy/transitions.js";
import { approvalFromRow } from "./approval-rows.js";

/** What a gate asks a person to allow. */
export interface ApprovalRequest {
  traceId: string;
  refs?: { eventId?: string | null; taskId?: string | null; stepId?: string | null };
  riskLevel: RiskLevel;
  /** The run's autonomy level when the gate decided. */
  autonomyLevel: AutonomyLevel;
  /** The exact action payload that will run if approved. */
  what: Record<string, unknown>;
  /** Why a person must decide, in words. */
  why: string;
  /** The capability a decider must hold; anyone may decide when null. */
  requiredCapability?: string | null;
  /** Seconds until the approval expires; one hour by default. */
  ttlSeconds?: number;
  /**
   * The gated call this approval stands for (its idempotency key), so that a resumed step finds
   * it again with `findForGate` instead of asking twice.
   */
  gateKey?: string | null;
  /** The ledger's `request_hash` of the gated call: the approval allows exactly this request. */
  requestHash?: string | null;
  /** The instruction stored as `how_to_approve`, when the service's default does not fit. */
  howToApprove?: string;
}

/** A person's decision. */
export interface ApprovalDecisionInput {
  /** Who decides (an operator id). */
  by: string;
  reason?: string | null;
  /** The capabilities the decider holds. */
  capabilities?: readonly string[];
  /**
   * What the decider answers, for an approval that stands for a question (an IR interrupt): the
   * state update the run continues with. Stored with the decision (`answerOf`).
   */
  answer?: unknown;
}

/** What an ApprovalService needs. */
export interface ApprovalServiceOptions {
  store: Store;
  audit: AuditWriter;
  clock?: Clock;
  newId?: () => string;
  /**
   * The instruction stored as `how_to_approve`: by default the CLI commands, with the
   * `--capability` the decider must assert when the approval requires one.
   */
  howToApprove?: (approvalId: string, requiredCapability: string | null) => string;
}

/**
 * Approvals: a gated action waits for a person. `request` creates a pending approval that
 * expires (one hour by default); `approve` and `deny` record who, when, why and under which
 * capability; an approval past its expiry is marked `expired` and deciding it fails with
 * `APPROVAL_EXPIRED`; deciding twice fails with `APPROVAL_ALREADY_DECIDED`. Every change and
 * every refusal is audited in the same transaction.
 *
 * @example
 * const approvals = new ApprovalService({ store, audit });
 * const a = await approvals.request({ traceId, riskLevel: "high", autonomyLevel: "A2",
 *   what: { tool: "ops.deploy", input }, why: "production deploy", requiredCapability: "deploy:approve" });
 * await approvals.approve(a.approval_id, { by: "ana", reason: "checked", capabilities: ["deploy:approve"] });
 */
export class ApprovalService {
  readonly #store: Store;
  readonly #audit: AuditWriter;
  readonly #clock: Clock;
  readonly #newId: () => string;
  readonly #howToApprove: (id: string, requiredCapability: string | null) => string;

  constructor(options: ApprovalServiceOptions) {
    this.#store = options.store;
    this.#audit = options.audit;
    this.#clock = options.clock ?? systemClock;
    this.#newId = options.newId ?? newId;
    this.#howToApprove = options.howToApprove ?? cliHowToApprove;
  }

  /** Creates a pending approval and audits the request. */
  async request(request: ApprovalRequest): Promise<Approval> {
    const ttl = request.ttlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS;
    if (!Number.isInteger(ttl) || ttl <= 0) {
      throw new KeelError(
        "INVALID_ARGUMENT",
        `An approval's time to live must be a positive number of seconds, not ${ttl}.`,
      );
    }
    if (request.why.trim().length === 0) {
      throw new KeelError(
        "INVALID_ARGUMENT",
        "An approval needs a reason (why) a person can read.",
      );
    }
    const now = this.#clock.now();
    const id = this.#newId();
    const row: ApprovalsTable = {
      id,
      trace_id: request.traceId,
      event_id: request.refs?.eventId ?? null,
      task_id: request.refs?.taskId ?? null,
      step_id: request.refs?.stepId ?? null,
      status: "pending",
      risk_level: request.riskLevel,
      autonomy_level: autonomyToDb(request.autonomyLevel),
      what_json: canonicalJson(request.what),
      why: request.why,
      how_to_approve:
        request.howToApprove?.replaceAll("<approval_id>", id) ??
        this.#howToApprove(id, request.requiredCapability ?? null),
      required_capability: request.requiredCapability ?? null,
      decided_by: null,
      decided_at: null,
      decision_reason: null,
      decision_capability: null,
      created_at: now,
      expires_at: now + ttl * 1000,
      gate_key: request.gateKey ?? null,
      request_hash: request.requestHash ?? null,
    };
    await runtimeDb(this.#store)
      .transaction()
      .execute(async (tx) => {
        await tx.insertInto("state_approvals").values(row).execute();
        await this.#auditIn(tx, row, {
          type: "gate.approval_requested",
          summary: `Approval requested (${request.riskLevel} risk, expires ${isoFromMs(row.expires_at)}): ${request.why}`,
          outcome: "info",
        });
      });
    return approvalFromRow(row);
  }

  /** One approval; a pending one past its expiry is marked expired first. */
  async get(id: string): Promise<Approval> {
    return approvalFromRow(await this.#current(id));
  }

  /**
   * The newest approval asked for a gated call (`gateKey`) of a task, if any; a pending one past
   * its expiry is marked expired first.
   */
  async findForGate(taskId: string, gateKey: string): Promise<Approval | undefined> {
    const row = await runtimeDb(this.#store)
      .selectFrom("state_approvals")
      .select("id")
      .where("task_id", "=", taskId)
      .where("gate_key", "=", gateKey)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .executeTakeFirst();
    return row ? this.get(row.id) : undefined;
  }

  /** The approvals of a task (a run), oldest first; expired ones are marked. */
  async listForTask(taskId: string): Promise<Approval[]> {
    const rows = await runtimeDb(this.#store)
      .selectFrom("state_approvals")
      .select("id")
      .where("task_id", "=", taskId)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return Promise.all(rows.map((row) => this.get(row.id)));
  }

  /** Approvals, newest first; only those with `status` when given. Expired ones are marked. */
  async list(options: { status?: ApprovalStatus; limit?: number } = {}): Promise<Approval[]> {
    await this.expireDue();
    let query = runtimeDb(this.#store).selectFrom("state_approvals").selectAll();
    if (options.status) query = query.where("status", "=", options.status);
    const rows = await query
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(options.limit ?? 100)
      .execute();
    return rows.map(approvalFromRow);
  }

  /** The answer recorded with an approval's decision (`decision.answer`), or undefined. */
  async answerOf(id: string): Promise<unknown> {
    const row = await this.#current(id);
    return row.answer_json === null || row.answer_json === undefined
      ? undefined
      : (JSON.parse(row.answer_json) as unknown);
  }

  /** Approves: the gated action may run. */
  approve(id: string, decision: ApprovalDecisionInput): Promise<Approval> {
    return this.#decide(id, "approved", decision);
  }

  /** Denies: the gated action must not run. */
  deny(id: string, decision: ApprovalDecisionInput): Promise<Approval> {
    return this.#decide(id, "denied", decision);
  }

  /** Marks every pending approval past its expiry `expired` (audited); returns them. */
  async expireDue(): Promise<Approval[]> {
    const due = await runtimeDb(this.#store)
      .selectFrom("state_approvals")
      .selectAll()
      .where("status", "=", "pending")
      .where("expires_at", "<=", this.#clock.now())
      .execute();
    const expired: Approval[] = [];
    for (const row of due) {
      const marked = await this.#expire(row);
      if (marked) expired.push(approvalFromRow(marked));
    }
    return expired;
  }

  // ------------------------------------------------------------------ internals

  async #current(id: string): Promise<ApprovalsTable> {
    const row = await runtimeDb(this.#store)
      .selectFrom("state_approvals")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
    if (!row) {
      throw new KeelError("APPROVAL_NOT_FOUND", `No approval "${id}".`, {
        details: { approvalId: id },
        hint: "List pending approvals with `keel approvals list`.",
      });
    }
    if (row.status === "pending" && Number(row.expires_at) <= this.#clock.now()) {
      return (await this.#expire(row)) ?? this.#current(id);
    }
    return row;
  }

  /** Marks a pending row expired; null if someone decided or expired it meanwhile. */
  async #expire(row: ApprovalsTable): Promise<ApprovalsTable | null> {
    assertTransition("approval", row.status, "expired", row.id);
    return runtimeDb(this.#store)
      .transaction()
      .execute(async (tx) => {
        const result = await tx
          .updateTable("state_approvals")
          .set({ status: "expired" })
          .where("id", "=", row.id)
          .where("status", "=", "pending")
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) return null;
        const expired: ApprovalsTable = { ...row, status: "expired" };
        await this.#auditIn(tx, expired, {
          type: "gate.expired",
          summary: `Approval expired at ${isoFromMs(Number(row.expires_at))} without a decision; the gated step fails`,
          outcome: "failure",
        });
        return expired;
      });
  }

  async #decide(
    id: string,
    to: "approved" | "denied",
    decision: ApprovalDecisionInput,
  ): Promise<Approval> {
    if (decision.by.trim().length === 0) {
      throw new KeelError("INVALID_ARGUMENT", "A decision must say who made it.", {
        hint: "Pass the operator's id as `by`.",
      });
    }
    const row = await this.#current(id);
    const verb = to === "approved" ? "approve" : "deny";
    if (row.status === "expired") {
      await this.#refusal(row, decision, "APPROVAL_EXPIRED");
      throw new KeelError(
        "APPROVAL_EXPIRED",
        `Approval ${id} expired at ${isoFromMs(Number(row.expires_at))}; it can no longer be decided, and the step it gated has failed.`,
        {
          details: { approvalId: id, expiresAt: isoFromMs(Number(row.expires_at)) },
          hint: "Re-run the step to request a new approval.",
        },
      );
    }
    if (row.status !== "pending") {
      await this.#refusal(row, decision, "APPROVAL_ALREADY_DECIDED");
      throw new KeelError(
        "APPROVAL_ALREADY_DECIDED",
        `Approval ${id} was already ${row.status} by ${row.decided_by ?? "someone"} at ${row.decided_at === null ? "an unknown time" : isoFromMs(Number(row.decided_at))}; it cannot be ${to === "approved" ? "approved" : "denied"} now.`,
        {
          details: { approvalId: id, status: row.status, decidedBy: row.decided_by },
          hint:
            row.task_id === null
              ? "Nothing is left to decide."
              : `If its run did not continue, continue it with: keel runs resume ${row.task_id}`,
        },
      );
    }
    const required = row.required_capability;
    if (required !== null && !(decision.capabilities ?? []).includes(required)) {
      await this.#refusal(row, decision, "CAPABILITY_MISSING");
      throw new KeelError(
        "CAPABILITY_MISSING",
        `${decision.by} may not ${verb} approval ${id}: it requires the capability "${required}".`,
        {
          details: { approvalId: id, required, by: decision.by },
          hint: `Ask someone holding "${required}" to decide.`,
        },
      );
    }
    assertTransition("approval", row.status, to, id);
    const now = this.#clock.now();
    const decided = await runtimeDb(this.#store)
      .transaction()
      .execute(async (tx) => {
        const result = await tx
          .updateTable("state_approvals")
          .set({
            status: to,
            decided_by: decision.by,
            decided_at: now,
            decision_reason: decision.reason ?? null,
            decision_capability: required,
            ...(decision.answer === undefined
              ? {}
              : { answer_json: canonicalJson(decision.answer) }),
          })
          .where("id", "=", id)
          .where("status", "=", "pending")
          .where("expires_at", ">", now)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) return null;
        const updated: ApprovalsTable = {
          ...row,
          status: to,
          decided_by: decision.by,
          decided_at: now,
          decision_reason: decision.reason ?? null,
          decision_capability: required,
        };
        await this.#auditIn(tx, updated, {
          type: to === "approved" ? "gate.approved" : "gate.denied",
          summary: `${decision.by} ${to} the action${decision.reason ? `: ${decision.reason}` : ""}`,
          outcome: to === "approved" ? "success" : "info",
        });
        return updated;
      });
    // Someone else decided (or it expired) between our read and our write: report what happened.
    if (!decided) return this.#decide(id, to, decision);
    return approvalFromRow(decided);
  }

  async #refusal(
    row: ApprovalsTable,
    decision: ApprovalDecisionInput,
    code: string,
  ): Promise<void> {
    await runtimeDb(this.#store)
      .transaction()
      .execute((tx) =>
        this.#auditIn(tx, row, {
          type: "gate.decision_refused",
          summary: `${decision.by} could not decide the approval (${code})`,
          outcome: "failure",
          payload: { code, by: decision.by, capabilities: decision.capabilities ?? [] },
        }),
      );
  }

  async #auditIn(
    tx: Transaction<RuntimeDatabase>,
    row: ApprovalsTable,
    entry: Pick<AuditEntry, "type" | "summary" | "outcome" | "payload">,
  ): Promise<void> {
    await this.#audit.write(
      row.trace_id,
      {
        stage: "gate",
        ...entry,
        refs: {
          approval_id: row.id,
          event_id: row.event_id,
          task_id: row.task_id,
          step_id: row.step_id,
        },
        riskLevel: row.risk_level,
        autonomyLevel: row.autonomy_level.toUpperCase() as AutonomyLevel,
      },
      tx,
    );
  }
}

/**
 * The CLI commands that decide an approval, copy-pasteable: the capability the approval requires
 * is part of them (the CLI takes the decider's capabilities as asserted by the operator).
 */
function cliHowToApprove(id: string, requiredCapability: string | null): string {
  const capability =
    requiredCapability === null ? "" : ` --capability ${shellWord(requiredCapability)}`;
  return `keel approvals approve ${id}${capability} --reason "<why>"   (or: keel approvals deny ${id}${capability} --reason "<why>")`;
}

/** A word a POSIX shell reads back unchanged. */
function shellWord(word: string): string {
  return /^[\w.:@/+=-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

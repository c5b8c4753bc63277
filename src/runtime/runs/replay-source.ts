import { KeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import { getArtifact } from "../artifacts/artifact-store.js";
import { type ApprovalsTable, runtimeDb, type ToolCallsTable } from "../db/tables.js";
import type { GateOutcome } from "../policy/gate-policy.js";
import type { RegisteredTool, ToolRegistry } from "../tools/tool-registry.js";
import { loadGrant } from "./run-grants.js";

/** A call a replay asked for that the original run did not make the same way. */
export interface CallDivergence {
  /** `<node>#<visit>:<n>`: where the call was made. */
  call: string;
  tool: string;
  kind: "missing" | "different-request";
}

/** What the original run's gate did at each place, as read back from its records. */
interface OriginalGates {
  /** The decision of each approval asked at a place (the latest asked there). */
  approvals: Map<string, ApprovalsTable["status"]>;
  /** Places whose call the gate blocked (`gate.blocked`) or previewed (`gate.preview`). */
  audited: Map<string, "block" | "preview">;
}

/** The ledger's `request_hash` of a call (`ToolLedger.hashRequest`, with its redaction). */
export type RequestHasher = (tool: RegisteredTool, input: unknown, action: string) => string;

/**
 * Answers a replay's tool calls by the call's place in the run (`<node>#<visit>:<n>`), as each
 * tool's `replay_policy` says:
 *
 * - `must_stub` / `must-stub` (the default): from the original run's ledger, never by running the
 *   tool. A strict replay fails loudly on a call that is not there or asks something else
 *   (`REPLAY_MISSING_CALL`, `REPLAY_DIVERGED`); a counterfactual replay records the divergence and
 *   stops at it.
 * - `rerun` (tools without effects only; the registry refuses it for others): the tool runs again,
 *   outside the ledger. A call that differs is still a divergence, but a counterfactual goes on.
 * - `recorded-result` (IR 1.1.0; tools without effects only): from the ledger where the original
 *   made the same call and it succeeded, else run again as `rerun` does.
 * - `fail-loud` (IR 1.1.0): a replay that reaches the call fails (`REPLAY_FAIL_LOUD`): nothing
 *   stands in for it and it may not run again.
 * - `skip`: no call and no check: the node gets what the original call at that place returned
 *   when it succeeded, else null; the diff compares such calls by their place and tool only.
 *
 * Gated calls (tools with effects) pass the replay's own gate first (`gate`), at the replay's
 * autonomy and risk, without asking anyone: `block` stops the call as it would have been
 * stopped; a call needing a person's confirmation gets the decision the original run's approval
 * at that place received (approved: answered; denied or expired: the same error), and stops the
 * replay (`APPROVAL_PENDING`) when the original never had one decided there.
 */
export class ReplaySource {
  readonly divergences: CallDivergence[] = [];
  /** What the replay asked, by place: `<tool>@<request hash>` (`<tool>@skipped` for skip). */
  readonly asked = new Map<string, string>();
  /** What the replay's gate decided, by place: `allow`, `preview`, `confirm:<decision>`, `block`. */
  readonly gates = new Map<string, string>();
  readonly #calls: Map<string, ToolCallsTable>;
  readonly #original: OriginalGates;

  private constructor(
    readonly originalRunId: string,
    readonly mode: "strict" | "counterfactual",
    calls: Map<string, ToolCallsTable>,
    original: OriginalGates,
    private readonly store: Store,
    private readonly tools: ToolRegistry,
    private readonly hashRequest: RequestHasher,
  ) {
    this.#calls = calls;
    this.#original = original;
  }

  /**
   * Loads the ledger of `runId` (every call it recorded). Requests are compared by the ledger's
   * own hash (its redaction included), so a replay asks exactly what the ledger recorded.
   */
  static async load(
    store: Store,
    runId: string,
    mode: "strict" | "counterfactual",
    tools: ToolRegistry,
    hashRequest: RequestHasher,
  ): Promise<ReplaySource> {
    const rows = await runtimeDb(store)
      .selectFrom("state_tool_calls")
      .selectAll()
      .where("task_id", "=", runId)
      .orderBy("created_at")
      .execute();
    const calls = new Map<string, ToolCallsTable>();
    const prefix = `${runId}:`;
    for (const row of rows) {
      if (!row.idempotency_key.startsWith(prefix)) continue;
      const place = row.idempotency_key.slice(prefix.length);
      // A failed call retried under the same key: the later row is the one the run went on with.
      calls.set(place, row);
    }
    const original = await originalGates(store, runId);
    return new ReplaySource(runId, mode, calls, original, store, tools, hashRequest);
  }

  /**
   * What the original run's gate did, by place: `block` (audited `gate.blocked`), `confirm:<the
   * approval's status>`, `preview` (audited `gate.preview`), or `allow` (a gated tool's call
   * reached the ledger with neither). Calls of tools without effects pass no gate and have none.
   */
  originalGates(): Map<string, string> {
    const gates = new Map<string, string>();
    const { approvals, audited } = this.#original;
    for (const place of new Set([...audited.keys(), ...approvals.keys(), ...this.#calls.keys()])) {
      const event = audited.get(place);
      const approval = approvals.get(place);
      const row = this.#calls.get(place);
      if (event === "block") gates.set(place, "block");
      else if (approval !== undefined) gates.set(place, `confirm:${approval}`);
      else if (event === "preview") gates.set(place, "preview");
      else if (row && this.tools.has(row.tool_name) && this.tools.get(row.tool_name).hasEffects) {
        gates.set(place, "allow");
      }
    }
    return gates;
  }

  /**
   * The replay's gate for a gated call at `place`, decided at the replay's autonomy and risk
   * (`outcome`); records it and stops the call as the gate would have, without asking anyone.
   */
  gate(place: string, tool: RegisteredTool, outcome: GateOutcome): void {
    // A tool that cannot dry-run is escalated from preview to confirm, as in a live run.
    const decision = outcome.decision === "preview" && !tool.dryRun ? "confirm" : outcome.decision;
    if (decision === "allow" || decision === "preview") {
      this.gates.set(place, decision);
      return;
    }
    if (decision === "block") {
      this.gates.set(place, "block");
      throw new KeelError(
        "GATE_BLOCKED",
        `The gate blocks "${tool.id}" at ${place} in the replay: ${outcome.explanation}`,
        {
          details: { call: place, tool: tool.id, originalRunId: this.originalRunId },
          hint: "The replay's autonomy and risk block this call; see the report's first divergence.",
        },
      );
    }
    const decided = this.#original.approvals.get(place) ?? "pending";
    this.gates.set(place, `confirm:${decided}`);
    if (decided === "approved") return;
    const details = { call: place, tool: tool.id, originalRunId: this.originalRunId };
    if (decided === "denied") {
      throw new KeelError(
        "APPROVAL_DENIED",
        `"${tool.id}" at ${place} was denied in the original run; the replay gives the same answer.`,
        { details, hint: "The action must not run." },
      );
    }
    if (decided === "expired") {
      throw new KeelError(
        "APPROVAL_EXPIRED",
        `The approval for "${tool.id}" at ${place} expired in the original run; the replay gives the same answer.`,
        { details, hint: "Nobody decided it in time; the action did not run." },
      );
    }
    throw new KeelError(
      "APPROVAL_PENDING",
      `"${tool.id}" at ${place} needs a person's confirmation in the replay, and the original run has no decision for it there; a replay asks nobody.`,
      {
        details,
        hint: "The replay's gate is stricter than the original's here; see the report's first divergence.",
      },
    );
  }

  /** What the original run called, by place: `<tool>@<request hash>` (`<tool>@skipped`). */
  originalCalls(): Map<string, string> {
    const calls = new Map<string, string>();
    for (const [place, row] of this.#calls) {
      const skipped = this.tools.has(row.tool_name)
        ? this.tools.get(row.tool_name).spec.replay_policy === "skip"
        : false;
      calls.set(place, `${row.tool_name}@${skipped ? "skipped" : row.request_hash.slice(0, 16)}`);
    }
    return calls;
  }

  /** The answer to the call at `place`, as the tool's replay policy says. */
  async answer(
    place: string,
    tool: RegisteredTool,
    input: unknown,
    action: string,
    traceId: string,
  ): Promise<unknown> {
    const policy = tool.spec.replay_policy;
    const row = this.#calls.get(place);
    if (policy === "skip") {
      this.asked.set(place, `${tool.id}@skipped`);
      return row?.tool_name === tool.id && row.status === "succeeded" ? this.#recorded(row) : null;
    }
    const requestHash = this.hashRequest(tool, input, action);
    this.asked.set(place, `${tool.id}@${requestHash.slice(0, 16)}`);
    const kind =
      !row || row.tool_name !== tool.id
        ? "missing"
        : requestHash !== row.request_hash
          ? "different-request"
          : null;
    if (kind) this.divergences.push({ call: place, tool: tool.id, kind });
    if (policy === "fail-loud") {
      throw new KeelError(
        "REPLAY_FAIL_LOUD",
        `The replay reached "${tool.id}" at ${place}, whose replay_policy "fail-loud" forbids answering it in a replay.`,
        {
          details: { call: place, tool: tool.id, originalRunId: this.originalRunId },
          hint: 'Give the tool replay_policy "must-stub" to answer it from the original run\'s ledger, or compare the runs without replaying.',
        },
      );
    }
    const rerun =
      policy === "rerun" ||
      (policy === "recorded-result" && (kind !== null || row?.status !== "succeeded"));
    if (rerun && !(kind && this.mode === "strict")) {
      return this.#rerun(tool, input, place, traceId);
    }
    if (!row || kind === "missing") {
      throw new KeelError(
        "REPLAY_MISSING_CALL",
        `The replay called "${tool.id}" at ${place}, which the original run ${this.originalRunId} did not record.`,
        {
          details: { call: place, tool: tool.id, originalRunId: this.originalRunId },
          hint:
            this.mode === "strict"
              ? "A replay must make the same calls as the original; the graph or its inputs changed."
              : "The counterfactual diverged here; see the report's first divergence.",
        },
      );
    }
    if (kind === "different-request") {
      throw new KeelError(
        "REPLAY_DIVERGED",
        `The replay called "${tool.id}" at ${place} with a different request than the original run.`,
        {
          details: { call: place, tool: tool.id, originalToolCallId: row.id },
          hint: "The inputs of the call changed; compare the runs with the replay report.",
        },
      );
    }
    if (row.status === "succeeded") return this.#recorded(row);
    throw new KeelError(
      row.status === "failed" ? "TOOL_CALL_FAILED" : "TOOL_CALL_UNKNOWN",
      `In the original run, "${tool.id}" at ${place} ended ${row.status}; the replay gives the same answer.`,
      { details: { call: place, tool: tool.id, originalToolCallId: row.id, status: row.status } },
    );
  }

  #recorded(row: ToolCallsTable): Promise<unknown> {
    return row.result_artifact_id === null
      ? Promise.resolve(null)
      : getArtifact(runtimeDb(this.store), row.result_artifact_id);
  }

  /** Runs a side-effect-free tool again for a replay (outside the ledger; nothing to record). */
  async #rerun(
    tool: RegisteredTool,
    input: unknown,
    place: string,
    traceId: string,
  ): Promise<unknown> {
    const problems = tool.validateInput(input);
    if (problems.length > 0) {
      throw new KeelError(
        "TOOL_INPUT_INVALID",
        `The input of tool "${tool.id}" fails its schema.`,
        {
          details: { tool: tool.id, problems, call: place },
        },
      );
    }
    const output = await tool.handler(input, {
      idempotencyKey: `replay:${place}`,
      toolCallId: "",
      traceId,
      // A counterfactual replay's call is not on the ledger: no claim to lose.
      fence: 0,
      checkClaim: async () => {},
    });
    const invalid = tool.validateOutput(output);
    if (invalid.length > 0) {
      throw new KeelError(
        "TOOL_OUTPUT_INVALID",
        `Tool "${tool.id}" returned output that fails its schema.`,
        { details: { tool: tool.id, problems: invalid, call: place } },
      );
    }
    return output;
  }
}

/**
 * Reads back what the original run's gate did: its approvals by the place of the call they gate
 * (`gate_key` is the call's idempotency key, `<run>:<place>`), and its blocked and previewed calls
 * from the gate events on its trace (their payload names the key).
 */
async function originalGates(store: Store, runId: string): Promise<OriginalGates> {
  const db = runtimeDb(store);
  const prefix = `${runId}:`;
  const placeOf = (key: unknown) =>
    typeof key === "string" && key.startsWith(prefix) ? key.slice(prefix.length) : undefined;
  const approvals = new Map<string, ApprovalsTable["status"]>();
  const asked = await db
    .selectFrom("state_approvals")
    .select(["gate_key", "status"])
    .where("task_id", "=", runId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  for (const approval of asked) {
    const place = placeOf(approval.gate_key);
    // Asked again at the same place (an approval of another request): the later one counts.
    if (place !== undefined) approvals.set(place, approval.status);
  }
  const audited = new Map<string, "block" | "preview">();
  const grant = await loadGrant(db, runId);
  if (grant) {
    const events = await db
      .selectFrom("state_audit_events")
      .select(["type", "payload_ref"])
      .where("trace_id", "=", grant.traceId)
      .where("task_id", "=", runId)
      .where("type", "in", ["gate.blocked", "gate.preview"])
      .orderBy("seq")
      .execute();
    for (const event of events) {
      if (event.payload_ref === null) continue;
      const payload = (await getArtifact(db, event.payload_ref)) as { idempotency_key?: unknown };
      const place = placeOf(payload?.idempotency_key);
      if (place !== undefined)
        audited.set(place, event.type === "gate.blocked" ? "block" : "preview");
    }
  }
  return { approvals, audited };
}

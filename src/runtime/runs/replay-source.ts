import { KeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import { getArtifact } from "../artifacts/artifact-store.js";
import { runtimeDb, type ToolCallsTable } from "../db/tables.js";
import type { RegisteredTool, ToolRegistry } from "../tools/tool-registry.js";

/** A call a replay asked for that the original run did not make the same way. */
export interface CallDivergence {
  /** `<node>#<visit>:<n>`: where the call was made. */
  call: string;
  tool: string;
  kind: "missing" | "different-request";
}

/** The ledger's `request_hash` of a call (`ToolLedger.hashRequest`, with its redaction). */
export type RequestHasher = (tool: RegisteredTool, input: unknown, action: string) => string;

/**
 * Answers a replay's tool calls by the call's place in the run (`<node>#<visit>:<n>`), as each
 * tool's `replay_policy` says:
 *
 * - `must_stub` (the default): from the original run's ledger, never by running the tool. A
 *   strict replay fails loudly on a call that is not there or asks something else
 *   (`REPLAY_MISSING_CALL`, `REPLAY_DIVERGED`); a counterfactual replay records the divergence and
 *   stops at it.
 * - `rerun` (tools without effects only; the registry refuses it for others): the tool runs again,
 *   outside the ledger. A call that differs is still a divergence, but a counterfactual goes on.
 * - `skip`: no call and no check: the node gets what the original call at that place returned
 *   when it succeeded, else null; the diff compares such calls by their place and tool only.
 */
export class ReplaySource {
  readonly divergences: CallDivergence[] = [];
  /** What the replay asked, by place: `<tool>@<request hash>` (`<tool>@skipped` for skip). */
  readonly asked = new Map<string, string>();
  readonly #calls: Map<string, ToolCallsTable>;

  private constructor(
    readonly originalRunId: string,
    readonly mode: "strict" | "counterfactual",
    calls: Map<string, ToolCallsTable>,
    private readonly store: Store,
    private readonly tools: ToolRegistry,
    private readonly hashRequest: RequestHasher,
  ) {
    this.#calls = calls;
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
    return new ReplaySource(runId, mode, calls, store, tools, hashRequest);
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
    if (policy === "rerun" && !(kind && this.mode === "strict")) {
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

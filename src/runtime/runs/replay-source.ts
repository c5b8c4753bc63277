import { hashValue, KeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import { getArtifact } from "../artifacts/artifact-store.js";
import { runtimeDb, type ToolCallsTable } from "../db/tables.js";
import { redactSecrets } from "../ledger/redact.js";
import type { RegisteredTool } from "../tools/tool-registry.js";

/** A call a replay asked for that the original run did not make the same way. */
export interface CallDivergence {
  /** `<node>#<visit>:<n>`: where the call was made. */
  call: string;
  tool: string;
  kind: "missing" | "different-request";
}

/**
 * Answers a replay's tool calls from the original run's ledger, by the call's place in the run
 * (`<node>#<visit>:<n>`), never by running the tool. A strict replay fails loudly on a call that
 * is not there or asks something else (`REPLAY_MISSING_CALL`, `REPLAY_DIVERGED`); a
 * counterfactual replay records the divergence and stops at it.
 */
export class ReplaySource {
  readonly divergences: CallDivergence[] = [];
  /** What the replay asked, by place: `<tool>@<request hash>`. */
  readonly asked = new Map<string, string>();
  readonly #calls: Map<string, ToolCallsTable>;

  private constructor(
    readonly originalRunId: string,
    readonly mode: "strict" | "counterfactual",
    calls: Map<string, ToolCallsTable>,
    private readonly store: Store,
  ) {
    this.#calls = calls;
  }

  /** Loads the ledger of `runId` (every call it recorded). */
  static async load(
    store: Store,
    runId: string,
    mode: "strict" | "counterfactual",
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
    return new ReplaySource(runId, mode, calls, store);
  }

  /** What the original run called, by place: `<tool>@<request hash>`. */
  originalCalls(): Map<string, string> {
    const calls = new Map<string, string>();
    for (const [place, row] of this.#calls)
      calls.set(place, `${row.tool_name}@${row.request_hash.slice(0, 16)}`);
    return calls;
  }

  /** The recorded answer to the call at `place`. */
  async answer(
    place: string,
    tool: RegisteredTool,
    input: unknown,
    action: string,
  ): Promise<unknown> {
    const row = this.#calls.get(place);
    const requestHash = hashValue(
      redactSecrets({ tool: tool.id, version: tool.spec.version, action, input }),
    );
    this.asked.set(place, `${tool.id}@${requestHash.slice(0, 16)}`);
    if (!row || row.tool_name !== tool.id) {
      this.divergences.push({ call: place, tool: tool.id, kind: "missing" });
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
    if (requestHash !== row.request_hash) {
      this.divergences.push({ call: place, tool: tool.id, kind: "different-request" });
      throw new KeelError(
        "REPLAY_DIVERGED",
        `The replay called "${tool.id}" at ${place} with a different request than the original run.`,
        {
          details: { call: place, tool: tool.id, originalToolCallId: row.id },
          hint: "The inputs of the call changed; compare the runs with the replay report.",
        },
      );
    }
    if (row.status === "succeeded") {
      return row.result_artifact_id === null
        ? null
        : getArtifact(runtimeDb(this.store), row.result_artifact_id);
    }
    throw new KeelError(
      row.status === "failed" ? "TOOL_CALL_FAILED" : "TOOL_CALL_UNKNOWN",
      `In the original run, "${tool.id}" at ${place} ended ${row.status}; the replay gives the same answer.`,
      { details: { call: place, tool: tool.id, originalToolCallId: row.id, status: row.status } },
    );
  }
}

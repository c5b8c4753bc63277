import type { AutonomyLevel, RiskLevel } from "../contracts/enums.js";
import type { ToolProfile } from "../tools/profiles.js";
import type { ToolCallOutcome, ToolLedger } from "./tool-ledger.js";

/** Who is calling: one attempt of one step of one run. */
export interface StepScope {
  traceId: string;
  taskId: string;
  /** The step's stable name within the task (the node id), the same on every retry. */
  stepName: string;
  stepId?: string | null;
  eventId?: string | null;
  riskLevel: RiskLevel;
  autonomyLevel: AutonomyLevel;
  capabilities?: readonly string[];
  profile?: ToolProfile;
}

/** The tools a node may call, already bound to its step. */
export interface StepTools {
  /**
   * Calls a tool through the ledger. The idempotency key is `<task>:<step>:<n>` for the n-th
   * call the step makes (or `<task>:<step>:<key>` when `key` is given), so a retried or resumed
   * step hands the same keys to the same calls and gets recorded results back.
   */
  call(tool: string, input: unknown, options?: { key?: string; action?: string }): Promise<unknown>;
  /** The full outcome (ledger entry, result, whether it was replayed). */
  callWithOutcome(
    tool: string,
    input: unknown,
    options?: { key?: string; action?: string },
  ): Promise<ToolCallOutcome>;
}

/**
 * Binds the ledger to one step, deriving stable idempotency keys from the step's identity and
 * the order of its calls. What the engine hands each node as its tool context.
 *
 * @example
 * const tools = stepTools(ledger, { traceId, taskId, stepName: "deploy", riskLevel: "high", autonomyLevel: "A3" });
 * await tools.call("ops.deploy", { service: "api" }); // key `${taskId}:deploy:0`
 */
export function stepTools(ledger: ToolLedger, scope: StepScope): StepTools {
  let counter = 0;
  const callWithOutcome: StepTools["callWithOutcome"] = (tool, input, options = {}) => {
    const suffix = options.key ?? String(counter++);
    return ledger.call({
      tool,
      input,
      idempotencyKey: `${scope.taskId}:${scope.stepName}:${suffix}`,
      traceId: scope.traceId,
      action: options.action,
      taskId: scope.taskId,
      stepId: scope.stepId ?? null,
      eventId: scope.eventId ?? null,
      riskLevel: scope.riskLevel,
      autonomyLevel: scope.autonomyLevel,
      capabilities: scope.capabilities,
      profile: scope.profile,
    });
  };
  return {
    callWithOutcome,
    call: async (tool, input, options) => (await callWithOutcome(tool, input, options)).output,
  };
}

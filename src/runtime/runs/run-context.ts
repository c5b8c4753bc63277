import { type Clock, KeelError } from "../../core/index.js";
import type { RunConfig } from "../../graph/index.js";
import type { ApprovalService } from "../approvals/approval-service.js";
import type { AuditWriter } from "../audit/audit-writer.js";
import type { ToolLedger } from "../ledger/tool-ledger.js";
import type { GatePolicy } from "../policy/gate-policy.js";
import type { RandomSource } from "../policy/random.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import type { ReplaySource } from "./replay-source.js";
import type { RunGrant } from "./run-grants.js";
import type { StepStore } from "./step-store.js";

/** The key under `configurable` where a governed run's context travels to its nodes. */
export const GOVERNANCE_KEY = "keel_governance";

/** Who decides an approval for a gated call: the capability the decider must hold, or null. */
export type ApprovalCapability = (call: { tool: string; risk: string }) => string | null;

/**
 * What the GovernedRuntime hands every node of a run, through `config.configurable`: the run's
 * grant and the services a node's tool calls go through. The graph engine only passes it on.
 */
export interface RunContext {
  readonly grant: RunGrant;
  readonly tools: ToolRegistry;
  readonly ledger: ToolLedger;
  readonly approvals: ApprovalService;
  readonly audit: AuditWriter;
  readonly steps: StepStore;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly policy: GatePolicy | undefined;
  readonly approvalTtlSeconds: number;
  readonly approvalCapability: ApprovalCapability;
  /** Set on a replay: every tool call is answered from the original run's ledger. */
  readonly replay: ReplaySource | undefined;
}

/** The run context in a node's config, or a clear error when the node runs outside one. */
export function runContextOf(config: RunConfig | undefined): RunContext {
  const context = config?.configurable?.[GOVERNANCE_KEY] as RunContext | undefined;
  if (!context) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      "This governed node was run outside a governed run: its config carries no run context.",
      {
        hint: "Start the graph with GovernedRuntime.start() (or resume it with resume()), not graph.invoke().",
      },
    );
  }
  return context;
}

/** The node's name and the engine's task id, from LangGraph.js's task metadata. */
export function taskIdentityOf(config: RunConfig | undefined): { node: string; taskKey: string } {
  const metadata = config?.metadata ?? {};
  const node = metadata.langgraph_node;
  const ns = metadata.langgraph_checkpoint_ns;
  if (typeof node !== "string" || typeof ns !== "string") {
    throw new KeelError(
      "INVALID_ARGUMENT",
      "A governed node needs the engine's task metadata (langgraph_node, langgraph_checkpoint_ns).",
      {
        hint: "Add governed nodes to a Keel StateGraph; the engine passes this metadata to nodes.",
      },
    );
  }
  return { node, taskKey: ns };
}

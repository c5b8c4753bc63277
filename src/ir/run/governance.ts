import { KeelError } from "../../core/index.js";
import type { RunConfig } from "../../graph/index.js";
import type { InterruptAction, NodeSpec } from "../models/index.js";
import type { Transition } from "./routing.js";

/**
 * Calls a tool named in the document, through whatever governs the run (gates, ledger). Node
 * functions get it as `context.call` in a governed run.
 */
export type ToolCaller = (
  tool: string,
  input: unknown,
  options?: { key?: string; risk?: "low" | "medium" | "high" | "critical" },
) => Promise<unknown>;

/** What a model is told about a tool it may call (the registered ToolSpec's), or undefined. */
export type ToolDescriber = (
  tool: string,
) => { name: string; description: string; input_schema: Record<string, unknown> } | undefined;

/** An interrupt a run waits at, as the governance layer sees it. */
export interface IrWait {
  /** Stable for this wait across re-executions of the wait step (a run's n-th transition). */
  key: string;
  /** The node after which the interrupt was raised. */
  node: string;
  rule: string;
  action: InterruptAction;
  /** When the wait ends (ms since the epoch), or null for no timeout. */
  deadline: number | null;
}

/** What became of a wait. */
export type IrWaitDecision =
  /** Nobody decided yet: pause with this value (what the caller of the run sees). */
  | { status: "pending"; pause: Record<string, unknown> }
  /** A person answered: the answer is a state update and the run falls through. */
  | { status: "answered"; answer: unknown }
  /** A person refused: the run ends there (fail-closed), whatever the rules say. */
  | { status: "denied"; by: string; reason: string | null }
  /** Nobody decided in time: the interrupt's `on_timeout` is taken. */
  | { status: "expired" };

/** A rule that fired in a step, with the actions it asked for. */
export interface FiredRule {
  rule: string;
  actions: readonly unknown[];
}

/**
 * What governs the runs of a compiled document (`compileDocument(doc, { governance })`): the
 * governed runtime (`keel/runtime`) implements it, so the IR engine needs nothing of it. Each
 * method gets the node's config, through which the runtime finds its run.
 */
export interface IrGovernance {
  /** Runs one node execution as a governed step; `run` gets the tool caller for its calls. */
  node(
    node: NodeSpec,
    state: Record<string, unknown>,
    run: (
      call: ToolCaller,
      describe?: ToolDescriber,
    ) => Promise<Record<string, unknown> | undefined>,
    config: RunConfig,
  ): Promise<Record<string, unknown> | undefined>;
  /** Records a step's transitions and the rules that fired to decide them (the audit trail). */
  transitions?(
    transitions: readonly Transition[],
    fired: readonly FiredRule[],
    config: RunConfig,
  ): Promise<void>;
  /**
   * Asks a person (an Approval) for the answer an interrupt waits for, or reads its decision.
   * Without it an interrupt pauses the graph and the caller resumes it with the answer.
   */
  wait?(wait: IrWait, config: RunConfig): Promise<IrWaitDecision>;
}

/** The tool caller of an ungoverned run: tools need a governed run. */
export const refuseToolCalls: ToolCaller = async (tool) => {
  throw new KeelError(
    "INVALID_ARGUMENT",
    `A node called the tool "${tool}" outside a governed run: tool calls need the ledger and the gates.`,
    {
      details: { tool },
      hint: "Run the document with `keel run` (or GovernedDocuments in keel/runtime).",
    },
  );
};

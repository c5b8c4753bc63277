import type { AgentAction, AgentFinish, AgentStep } from "@langchain/core/agents";
import type { Runnable, RunnableConfig } from "@langchain/core/runnables";
import { type CompiledStateGraph, END, START, StateGraph } from "../../graph/index.js";
import type { ToolLike } from "./tool-node.js";

/** The state of a `createAgentExecutor` graph. */
export interface AgentExecutorState {
  input?: unknown;
  agentOutcome?: AgentAction | AgentFinish;
  steps: AgentStep[];
}

/** Options of `createAgentExecutor`. */
export interface CreateAgentExecutorParams {
  /** Reads the state, returns the next `AgentAction` (`{ tool, toolInput, log }`) or an `AgentFinish`. */
  agentRunnable: Runnable;
  /** The tools an action may name, or a Runnable that runs an action itself. */
  tools: ToolLike[] | Runnable<AgentAction, unknown>;
}

function isFinish(outcome: AgentAction | AgentFinish | undefined): outcome is AgentFinish {
  return outcome !== undefined && "returnValues" in outcome;
}

/**
 * LangGraph.js's deprecated agent executor, under its name: a graph that asks `agentRunnable` for
 * the next action, runs the tool it names, records `{ action, observation }` in `steps`, and
 * loops until the agent returns an `AgentFinish` (`agentOutcome`). An action naming an unknown
 * tool gets LangGraph.js's "is not a valid tool" observation. New code: `createReactAgent`.
 *
 * @example
 * const executor = createAgentExecutor({ agentRunnable: prompt.pipe(llm).pipe(parse), tools });
 * const { agentOutcome, steps } = await executor.invoke({ input: "weather in sf?" });
 * @deprecated Use `createReactAgent` (or a `ToolNode`) instead, as LangGraph.js advises.
 */
export function createAgentExecutor({
  agentRunnable,
  tools,
}: CreateAgentExecutorParams): CompiledStateGraph<AgentExecutorState> {
  const runTool = Array.isArray(tools)
    ? toolRunner(tools)
    : (action: AgentAction, config: RunnableConfig) => tools.invoke(action, config);
  const runAgent = async (state: AgentExecutorState, config: RunnableConfig) => ({
    agentOutcome: (await agentRunnable.invoke(state, config)) as AgentAction | AgentFinish,
  });
  const executeTools = async (state: AgentExecutorState, config: RunnableConfig) => {
    const action = state.agentOutcome;
    if (action === undefined || isFinish(action)) throw new Error("Agent has not been run yet");
    const observation = (await runTool(action, config)) as string;
    return { steps: [{ action, observation }] };
  };
  return new StateGraph({
    channels: {
      input: null,
      agentOutcome: null,
      steps: { reducer: (a: AgentStep[], b: AgentStep[]) => a.concat(b), default: () => [] },
    },
  } as never)
    .addNode("agent", runAgent as never)
    .addNode("action", executeTools as never)
    .addEdge(START, "agent")
    .addConditionalEdges(
      "agent",
      (state: AgentExecutorState) => (isFinish(state.agentOutcome) ? "end" : "continue"),
      { continue: "action", end: END },
    )
    .addEdge("action", "agent")
    .compile() as unknown as CompiledStateGraph<AgentExecutorState>;
}

/** Runs the tool an action names with its `toolInput`; an unknown name is an observation. */
function toolRunner(tools: ToolLike[]) {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return (action: AgentAction, config: RunnableConfig): Promise<unknown> => {
    const tool = byName.get(action.tool);
    if (tool === undefined)
      return Promise.resolve(
        `${action.tool} is not a valid tool, try one of ${[...byName.keys()].join(", ")}.`,
      );
    return (tool as Runnable).invoke(action.toolInput, config);
  };
}

import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod/v3";
import { createAgentExecutor } from "../../src/agents/index.js";

const lookup = tool(async (query: string) => `found ${query}`, {
  name: "lookup",
  description: "Looks a word up.",
  schema: z.string(),
});

/** An agent that asks for the actions it is given, in order, then finishes with the last step. */
function scriptedAgent(tools: string[]) {
  return RunnableLambda.from((state: { steps: { observation: string }[] }) => {
    const next = tools[state.steps.length];
    if (next === undefined)
      return { returnValues: { answer: state.steps.at(-1)?.observation }, log: "finish" };
    return { tool: next, toolInput: `q${state.steps.length}`, log: `call ${next}` };
  });
}

describe("createAgentExecutor (LangGraph.js's deprecated prebuilt)", () => {
  it("loops agent → tool until an AgentFinish, recording each action and observation", async () => {
    const executor = createAgentExecutor({
      agentRunnable: scriptedAgent(["lookup", "lookup"]),
      tools: [lookup],
    });
    expect(await executor.invoke({ input: "go" })).toEqual({
      input: "go",
      agentOutcome: { returnValues: { answer: "found q1" }, log: "finish" },
      steps: [
        {
          action: { tool: "lookup", toolInput: "q0", log: "call lookup" },
          observation: "found q0",
        },
        {
          action: { tool: "lookup", toolInput: "q1", log: "call lookup" },
          observation: "found q1",
        },
      ],
    });
  });

  it("answers an action naming an unknown tool with LangGraph.js's observation", async () => {
    const executor = createAgentExecutor({
      agentRunnable: scriptedAgent(["nope"]),
      tools: [lookup],
    });
    const result = (await executor.invoke({ input: "go" })) as { steps: { observation: string }[] };
    expect(result.steps[0]?.observation).toBe("nope is not a valid tool, try one of lookup.");
  });
});

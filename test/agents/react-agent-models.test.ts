/**
 * `createReactAgent` with a dynamic model (a function choosing the model at each call) and with
 * LangGraph.js's older names of `prompt` (`stateModifier`, `messageModifier`): each checked
 * against LangGraph.js's own `createReactAgent`, same scripted models, same messages and the same
 * model input.
 */
import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { createReactAgent as langgraphReactAgent } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createReactAgent } from "../../src/agents/index.js";
import { isKeelError } from "../../src/index.js";
import { type ScriptEntry, ScriptedChatModel } from "./support/scripted-model.js";
import { add } from "./support/tools.js";

const SMALL: ScriptEntry[] = [
  { content: "", tool_calls: [{ id: "c1", name: "add", args: { a: 2, b: 3 } }] },
  { content: "", tool_calls: [{ id: "c2", name: "add", args: { a: 5, b: 5 } }] },
];
const LARGE: ScriptEntry[] = [{ content: "The answer is 10." }];

type Create = typeof createReactAgent;
const libraries: Array<[string, Create]> = [
  ["keel", createReactAgent],
  ["langgraph", langgraphReactAgent as unknown as Create],
];

function comparable(messages: BaseMessage[]) {
  return messages.map((m) => [m.getType(), m.content, m.name]);
}

function seenText(model: ScriptedChatModel) {
  return model.seen.map((messages) => messages.map((m) => `${m.getType()}:${m.content}`));
}

/** Runs `build`'s agent on both libraries; returns each one's final messages and models. */
async function onBoth<T>(
  build: (create: Create) => { agent: ReturnType<Create>; models: T },
  input = "add things",
) {
  const out: Record<string, { messages: BaseMessage[]; models: T }> = {};
  for (const [name, create] of libraries) {
    const { agent, models } = build(create);
    const result = await agent.invoke({ messages: [new HumanMessage(input)] });
    out[name] = { messages: result.messages, models };
  }
  return { keel: out.keel!, langgraph: out.langgraph! };
}

describe("createReactAgent: dynamic models", () => {
  it("calls the function at every model call with the state and config, as LangGraph.js", async () => {
    const { keel, langgraph } = await onBoth((create) => {
      // Two tool rounds on the small model, then the large one once the conversation has grown.
      const small = new ScriptedChatModel(SMALL);
      const large = new ScriptedChatModel(LARGE);
      const calls: Array<[number, string]> = [];
      const agent = create({
        llm: (state, config) => {
          calls.push([
            state.messages.length,
            String((config.configurable as { who?: string } | undefined)?.who),
          ]);
          return (state.messages.length >= 5 ? large : small).bindTools([add]);
        },
        tools: [add],
        prompt: "You add numbers.",
      });
      const withConfig = {
        invoke: (input: unknown) =>
          agent.invoke(input as never, { configurable: { who: "ana" } }) as never,
      } as unknown as ReturnType<Create>;
      return { agent: withConfig, models: { small, large, calls } };
    });
    expect(comparable(keel.messages)).toEqual(comparable(langgraph.messages));
    expect(keel.messages.at(-1)?.content).toBe("The answer is 10.");
    expect(keel.models.calls).toEqual(langgraph.models.calls);
    expect(keel.models.calls).toEqual([
      [1, "ana"],
      [3, "ana"],
      [5, "ana"],
    ]);
    // The prompt is put before the messages for whichever model is chosen.
    expect(seenText(keel.models.small)).toEqual(seenText(langgraph.models.small));
    expect(seenText(keel.models.large)).toEqual(seenText(langgraph.models.large));
    expect(keel.models.large.seen[0]?.[0]?.content).toBe("You add numbers.");
  });

  it("uses the chosen model, unbound, for the structured response", async () => {
    const schema = z.object({ total: z.number() });
    const { keel, langgraph } = await onBoth((create) => {
      const model = new ScriptedChatModel([
        { content: "10" },
        { content: "", tool_calls: [{ id: "s1", name: "extract", args: { total: 10 } }] },
      ]);
      const agent = create({ llm: async () => model, tools: [], responseFormat: schema });
      return { agent, models: model };
    });
    const answer = async (side: typeof keel) => side.models.seen.length;
    expect(await answer(keel)).toBe(await answer(langgraph));
    expect(keel.messages.at(-1)?.content).toBe("10");
  });

  it("a dynamic model's endpoint failure is the model call's error", async () => {
    const failing = new ScriptedChatModel([{ error: "upstream exploded" }]);
    await expect(
      createReactAgent({ llm: () => failing, tools: [add] }).invoke({
        messages: [new HumanMessage("hi")],
      }),
    ).rejects.toThrow("upstream exploded");
  });
});

describe("createReactAgent: stateModifier and messageModifier (older names of prompt)", () => {
  const modifiers: Array<[string, (create: Create) => Parameters<Create>[0]]> = [
    [
      "stateModifier, a function of the state",
      () => ({
        llm: new ScriptedChatModel(LARGE),
        tools: [add],
        stateModifier: (state) => [
          new SystemMessage(`${state.messages.length} so far`),
          ...state.messages,
        ],
      }),
    ],
    [
      "stateModifier, a string",
      () => ({ llm: new ScriptedChatModel(LARGE), tools: [add], stateModifier: "Be brief." }),
    ],
    [
      "messageModifier, a function of the messages",
      () => ({
        llm: new ScriptedChatModel(LARGE),
        tools: [add],
        messageModifier: (messages: BaseMessage[]) => [
          new SystemMessage("From messages."),
          ...messages,
          new HumanMessage("(be brief)"),
        ],
      }),
    ],
    [
      "messageModifier, a Runnable of the messages",
      () => ({
        llm: new ScriptedChatModel(LARGE),
        tools: [add],
        messageModifier: RunnableLambda.from((messages: BaseMessage[]) => [
          new SystemMessage(`runnable saw ${messages.length}`),
          ...messages,
        ]),
      }),
    ],
    [
      "messageModifier, a SystemMessage",
      () => ({
        llm: new ScriptedChatModel(LARGE),
        tools: [add],
        messageModifier: new SystemMessage("A system message."),
      }),
    ],
  ];
  for (const [name, params] of modifiers) {
    it(`${name}: the model sees what LangGraph.js's sees`, async () => {
      const { keel, langgraph } = await onBoth((create) => {
        const p = params(create);
        return { agent: create(p), models: p.llm as ScriptedChatModel };
      });
      expect(seenText(keel.models)).toEqual(seenText(langgraph.models));
      expect(keel.models.seen[0]?.length).toBeGreaterThan(1);
      expect(comparable(keel.messages)).toEqual(comparable(langgraph.messages));
    });
  }

  it("refuses two of prompt, stateModifier and messageModifier, as LangGraph.js does", () => {
    const params = {
      llm: new ScriptedChatModel(LARGE),
      tools: [add],
      prompt: "one",
      messageModifier: "two",
    };
    let caught: unknown;
    try {
      createReactAgent(params);
    } catch (error) {
      caught = error;
    }
    expect(isKeelError(caught) && caught.code).toBe("INVALID_ARGUMENT");
    // LangGraph.js refuses it when the model is first called.
    return expect(
      langgraphReactAgent(params as never).invoke({ messages: [new HumanMessage("hi")] }),
    ).rejects.toThrow("Expected only one of prompt, stateModifier, or messageModifier");
  });
});

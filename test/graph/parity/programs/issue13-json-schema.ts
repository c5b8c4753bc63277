/** `getStateTypeSchema` & co. (`keel/zod`): the JSON schemas of a zod-state graph. */
import { z } from "zod";
import type { GraphApi } from "../api.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' functions, called the same way.
type Loose = Record<string, any>;
const lib = (api: GraphApi): Loose => api as unknown as Loose;

export const issue13JsonSchemaPrograms = {
  /** Registry extras, reducer update schemas, partial inputs, separate input/output schemas. */
  async jsonSchemas(api: GraphApi) {
    const { registry, MessagesZodMeta, withLangGraph } = lib(api);
    const { getStateTypeSchema, getUpdateTypeSchema, getInputTypeSchema, getOutputTypeSchema } =
      lib(api);
    const State = z.object({
      messages: z.array(z.any()).register(registry, MessagesZodMeta),
      count: z.number(),
      items: withLangGraph(z.array(z.string()), {
        reducer: {
          fn: (a: string[], b: string | string[]) => a.concat(b),
          schema: z.union([z.string(), z.array(z.string())]),
        },
        default: () => [],
      }),
    });
    const graph = new api.StateGraph(State)
      .addNode("one", () => ({ count: 1 }))
      .addEdge(api.START, "one")
      .compile();
    const Input = z.object({ question: z.string() });
    const Output = z.object({ answer: z.string() });
    const split = new (
      api.StateGraph as unknown as new (
        state: unknown,
        options: unknown,
      ) => Loose
    )(z.object({ question: z.string(), answer: z.string() }), {
      input: Input,
      output: Output,
    })
      .addNode("respond", (s: Loose) => ({ answer: `re: ${s.question}` }))
      .addEdge(api.START, "respond")
      .compile();
    return {
      state: getStateTypeSchema(graph),
      update: getUpdateTypeSchema(graph),
      input: getInputTypeSchema(graph),
      output: getOutputTypeSchema(graph),
      splitInput: getInputTypeSchema(split),
      splitOutput: getOutputTypeSchema(split),
      run: await split.invoke({ question: "why" }),
    };
  },

  /** A `StateSchema` describes itself: Standard JSON Schema fields, folded fields' extras, defaults. */
  async stateSchemaJsonSchemas(api: GraphApi) {
    const { StateSchema, ReducedValue, MessagesValue } = lib(api);
    const { getStateTypeSchema, getUpdateTypeSchema, getInputTypeSchema, getOutputTypeSchema } =
      lib(api);
    const State = new StateSchema({
      messages: MessagesValue,
      agentId: z.string().describe("the agent's id"),
      count: z.number().default(0),
      tags: new ReducedValue(
        z.array(z.string()).default(() => []),
        {
          inputSchema: z.string(),
          reducer: (all: string[], one: string) => [...all, one],
          jsonSchemaExtra: { langgraph_type: "tags" },
        },
      ),
    });
    const graph = new api.StateGraph(State)
      .addNode("agent", () => ({ messages: [{ role: "assistant", content: "hi" }], tags: "x" }))
      .addEdge(api.START, "agent")
      .compile();
    const result = (await graph.invoke({ agentId: "a-1" })) as Loose;
    return {
      state: getStateTypeSchema(graph),
      update: getUpdateTypeSchema(graph),
      input: getInputTypeSchema(graph),
      output: getOutputTypeSchema(graph),
      run: {
        agentId: result.agentId,
        tags: result.tags,
        messages: (result.messages as Loose[]).map((m) => [m.getType(), m.content]),
      },
    };
  },

  /** `MessagesDeltaValue`: a messages key kept in a delta channel, across a checkpointed thread. */
  async messagesDeltaValue(api: GraphApi) {
    const { StateSchema, MessagesDeltaValue, MemorySaver } = lib(api);
    const State = new StateSchema({ messages: MessagesDeltaValue });
    let turn = 0;
    const graph = new api.StateGraph(State)
      .addNode("agent", () => ({ messages: [{ role: "assistant", content: `turn ${++turn}` }] }))
      .addEdge(api.START, "agent")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    await graph.invoke({ messages: [{ role: "user", content: "one" }] }, config);
    const result = (await graph.invoke(
      { messages: [{ role: "user", content: "two" }] },
      config,
    )) as Loose;
    return (result.messages as Loose[]).map((m) => [m.getType(), m.content]);
  },
};

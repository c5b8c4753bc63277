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
};

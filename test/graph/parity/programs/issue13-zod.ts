/** zod objects as graph state (`keel/zod` / `@langchain/langgraph/zod`). */
import { z } from "zod";
import { z as z3 } from "zod/v3";
import type { GraphApi, Values } from "../api.js";
import { outcome } from "../harness.js";
import { concat } from "./common.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' helpers, called the same way.
type Loose = Record<string, any>;
const lib = (api: GraphApi): Loose => api as unknown as Loose;

export const issue13ZodPrograms = {
  /** A zod 4 object is a state: plain fields are last values, registry metadata adds reducers and defaults. */
  async zodObjectWithRegistry(api: GraphApi) {
    const { registry } = lib(api);
    const State = z.object({
      topic: z.string(),
      log: z.array(z.string()).register(registry, { reducer: { fn: concat }, default: () => [] }),
      mode: z.string().register(registry, { default: () => "draft" }),
    });
    const graph = new api.StateGraph(State)
      .addNode("a", (s: Values) => ({ log: [`a:${String(s.topic)}:${String(s.mode)}`] }))
      .addNode("b", () => ({ log: ["b"], mode: "final" }))
      .addEdge(api.START, "a")
      .addEdge("a", "b")
      .compile();
    return graph.invoke({ topic: "cats" });
  },

  /** withLangGraph on a zod 3 schema; the input is checked against the fields' schemas. */
  async zod3WithLangGraphAndBadInput(api: GraphApi) {
    const { withLangGraph } = lib(api);
    const State = z3.object({
      n: z3.number(),
      total: withLangGraph(z3.number(), {
        reducer: { fn: (a: number, b: number) => a + b },
        default: () => 0,
      }),
    });
    const graph = new api.StateGraph(State)
      .addNode("a", (s: Values) => ({ total: Number(s.n) }))
      .addNode("b", () => ({ total: 10 }))
      .addEdge(api.START, "a")
      .addEdge(api.START, "b")
      .compile();
    const bad = await outcome(api, () => graph.invoke({ n: "one" }));
    return { good: await graph.invoke({ n: 5 }), failed: Object.hasOwn(bad as object, "error") };
  },

  /** MessagesZodState.extend: messages append through the messages reducer. */
  async messagesZodState(api: GraphApi) {
    const { MessagesZodState } = lib(api);
    const State = MessagesZodState.extend({ turns: z3.number() });
    const graph = new api.StateGraph(State)
      .addNode("reply", (s: Values) => ({
        messages: [{ role: "ai", content: "hi", id: "2" }],
        turns: Number(s.turns) + 1,
      }))
      .addEdge(api.START, "reply")
      .compile();
    const out = await graph.invoke({
      messages: [{ role: "user", content: "hello", id: "1" }],
      turns: 0,
    });
    const messages = out.messages as Array<{ content: unknown; id?: unknown }>;
    return { turns: out.turns, messages: messages.map((m) => [m.id, m.content]) };
  },

  /** A node's write (an update or a Command's) to a zod object key is checked against its schema. */
  async zodNodeUpdatesValidated(api: GraphApi) {
    const schema = z.object({ count: z.number().min(0).max(10), note: z.string().optional() });
    const run = async (node: (s: Values) => unknown, input: Values) => {
      const graph = new api.StateGraph(schema as never)
        .addNode("node", node)
        .addEdge(api.START, "node")
        .addEdge("node", api.END)
        .compile();
      try {
        return { ok: await graph.invoke(input) };
      } catch (error) {
        return { threw: true, namesKey: /count/.test((error as Error).message) };
      }
    };
    return {
      tooBig: await run((s) => ({ count: (s.count as number) + 15 }), { count: 0 }),
      viaCommand: await run(
        (s) => new api.Command({ update: { count: (s.count as number) + 15 } }),
        { count: 0 },
      ),
      fine: await run((s) => ({ count: (s.count as number) + 1, note: "ok" }), { count: 2 }),
    };
  },

  /** zod's own `.default()` wins over the registry's; the registry's fills a field without one. */
  async zodDefaultBeforeRegistryDefault(api: GraphApi) {
    const { registry } = lib(api);
    const State = z.object({
      withZod: z.string().default("zod-default"),
      withRegistry: z.string().register(registry, { default: () => "registry-default" }),
      withBoth: z
        .string()
        .default("zod-default")
        .register(registry, { default: () => "registry-default" }),
    });
    let seen: unknown;
    const graph = new api.StateGraph(State as never)
      .addNode("process", (s: Values) => {
        seen = { ...s };
        return {};
      })
      .addEdge(api.START, "process")
      .compile();
    return { result: await graph.invoke({}), seen };
  },

  /** A key of the input schema with another reducer than the state's is refused at construction. */
  async reducerConflictAcrossSchemas(api: GraphApi) {
    const { registry } = lib(api);
    const field = (fn: (a: number[], b: number[]) => number[]) =>
      z.array(z.number()).default([]).register(registry, { reducer: { fn } });
    const shared = field((a, b) => [...a, ...b]);
    const build = (input: unknown) => {
      try {
        new api.StateGraph({ state: z.object({ numbers: shared }), input } as never)
          .addNode("process", () => ({}))
          .addEdge(api.START, "process")
          .compile();
        return "built";
      } catch (error) {
        return /Channel "numbers" already exists with a different type/.test(
          (error as Error).message,
        );
      }
    };
    return {
      same: build(z.object({ numbers: shared })),
      different: build(z.object({ numbers: field((a, b) => [...b, ...a]) })),
    };
  },

  /** A zod context schema (second argument) checks `configurable`; its JSON keeps the extras. */
  async zodContextSchema(api: GraphApi) {
    const { withLangGraph, getConfigTypeSchema } = lib(api);
    const context = z.object({
      prompt: withLangGraph(z.string().min(1), {
        jsonSchemaExtra: { langgraph_nodes: ["agent"], langgraph_type: "prompt" },
      }),
    });
    const graph = new (api.StateGraph as unknown as new (a: unknown, b: unknown) => Loose)(
      z.object({ foo: z.string() }),
      context,
    )
      .addNode("agent", (_s: Values, config: Loose) => ({ foo: config.configurable.prompt }))
      .addEdge(api.START, "agent")
      .compile();
    const ok = await graph.invoke({ foo: "in" }, { configurable: { prompt: "hi" } });
    const bad = await outcome(api, () =>
      graph.invoke({ foo: "in" }, { configurable: { prompt: "" } }),
    );
    const { $schema: _ignored, ...json } = getConfigTypeSchema(graph) as Loose;
    return { ok, rejected: Object.hasOwn(bad as object, "error"), json };
  },

  /** `graph.builder._schemaRuntimeDefinition`: the zod object or StateSchema the state was given as. */
  async builderRuntimeDefinition(api: GraphApi) {
    const State = z.object({ n: z.number() });
    const build = (state: unknown) =>
      (
        new api.StateGraph(state as never)
          .addNode("a", () => ({}))
          .addEdge(api.START, "a")
          .compile() as unknown as Loose
      ).builder._schemaRuntimeDefinition;
    return {
      zod: build(State) === State,
      wrapped: build({ state: State }) === State,
      annotation: build(api.Annotation.Root({ n: api.Annotation() })),
    };
  },
};

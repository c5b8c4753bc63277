/** `maxConcurrency`, `defer: true` nodes and `graph.nodes.x.invoke`. */
import type { GraphApi, Values } from "../api.js";
import { collectStream, thread } from "../harness.js";
import { concat } from "./common.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' classes, called the same way.
type Loose = Record<string, any>;

/** One turn of the event loop: every task started in the same turn overlaps with the others. */
const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export const issue13NodesPrograms = {
  /** `maxConcurrency` caps how many of a step's tasks run at once; results are unchanged. */
  async maxConcurrency(api: GraphApi) {
    const State = api.Annotation.Root({
      items: api.Annotation({ reducer: concat as never, default: () => [] }),
    });
    let running = 0;
    let most = 0;
    const graph = new api.StateGraph(State)
      .addNode("fan", () => ({ items: ["fan"] }))
      .addNode("work", async (n: Values) => {
        running += 1;
        most = Math.max(most, running);
        await turn();
        running -= 1;
        return { items: [String(n)] };
      })
      .addEdge(api.START, "fan")
      .addConditionalEdges("fan", () =>
        Array.from({ length: 12 }, (_, i) => new api.Send("work", i)),
      )
      .compile({ checkpointer: new api.MemorySaver() });
    const unlimited = await graph.invoke({ items: [] }, thread("0"));
    const widest = most;
    most = 0;
    const limited = await graph.invoke({ items: [] }, {
      maxConcurrency: 5,
      configurable: { thread_id: "1" },
    } as never);
    return { unlimited, widest, limited, capped: most, left: running };
  },

  /** A deferred node waits until nothing else is due, behind a longer branch of the fan-out. */
  async deferredNode(api: GraphApi) {
    const build = (waitingEdge: boolean) => {
      const State = api.Annotation.Root({
        log: api.Annotation({ reducer: concat as never, default: () => [] }),
        answer: api.Annotation(),
      });
      const builder = new api.StateGraph(State)
        .addNode("split", () => ({ log: ["split"] }))
        .addNode("short", () => ({ log: ["short"] }))
        .addNode("long1", () => ({ log: ["long1"] }))
        .addNode("long2", () => ({ log: ["long2"] }))
        .addNode("gather", (s: Values) => ({ answer: (s.log as string[]).join(",") }), {
          defer: true,
        } as never)
        .addEdge(api.START, "split")
        .addEdge("split", "short")
        .addEdge("split", "long1")
        .addEdge("long1", "long2");
      if (waitingEdge) builder.addEdge(["short", "long1"], "gather");
      else builder.addEdge("short", "gather").addEdge("long1", "gather");
      return builder.addEdge("gather", api.END).compile({ checkpointer: new api.MemorySaver() });
    };
    const out: Record<string, unknown> = {};
    for (const waitingEdge of [true, false]) {
      const graph = build(waitingEdge);
      const updates = await collectStream(graph, { log: [] }, thread(`w${waitingEdge}`));
      const next: unknown[] = [];
      for await (const s of graph.getStateHistory(thread(`w${waitingEdge}`))) next.unshift(s.next);
      out[String(waitingEdge)] = { updates, next };
    }
    return out;
  },

  /** `graph.nodes.x.invoke` runs that node alone and returns what it returned. */
  async invokeOneNode(api: GraphApi) {
    const State = api.Annotation.Root({ n: api.Annotation() });
    const graph = new api.StateGraph(State)
      .addNode("one", (s: Values) => ({ n: (s.n as number) + 1 }))
      .addNode("two", async (s: Values) => ({ n: (s.n as number) * 10 }))
      .addEdge(api.START, "one")
      .addEdge("one", "two")
      .compile() as unknown as Loose;
    return {
      one: await graph.nodes.one.invoke({ n: 1 }),
      two: await graph.nodes.two.invoke({ n: 2 }),
    };
  },

  /** A node's `input` schema: it gets only its keys; a key the state lacks passes between nodes. */
  async nodeInputSchema(api: GraphApi) {
    const State = api.Annotation.Root({
      messages: api.Annotation({ reducer: concat as never, default: () => [] }),
      count: api.Annotation(),
    });
    const ProcessInput = api.Annotation.Root({
      messages: api.Annotation({ reducer: concat as never, default: () => [] }),
      query: api.Annotation(),
    });
    let seen: unknown;
    const graph = new api.StateGraph(State)
      .addNode("addQuery", (s: Values) => ({ query: `${(s.messages as string[])[0]} as a query` }))
      .addNode(
        "process",
        async (input: Values) => {
          seen = { ...input };
          return { messages: ["processed"], query: "not in the output" };
        },
        { input: ProcessInput } as never,
      )
      .addEdge(api.START, "addQuery")
      .addEdge("addQuery", "process")
      .addEdge("process", api.END)
      .compile();
    return { result: await graph.invoke({ messages: ["hello"], count: 1 }), seen };
  },

  /** An unbound class method as a node: `this` has the node's name, as LangGraph.js calls it. */
  async unboundMethodNode(api: GraphApi) {
    class Named {
      constructor(readonly name: string) {}
      call(this: { name?: string } | undefined): Values {
        return { seen: [this?.name ?? "no this"] };
      }
    }
    const State = api.Annotation.Root({
      seen: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const graph = new api.StateGraph(State)
      .addNode("worker", new Named("instance").call)
      .addEdge(api.START, "worker")
      .addEdge("worker", api.END)
      .compile();
    return graph.invoke({ seen: [] });
  },
};

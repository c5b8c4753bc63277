/** LangGraph.js's channel classes (`LastValue`, `Topic`, …) and `Overwrite`, alone and in graphs. */
import type { GraphApi, Values } from "../api.js";
import { outcome } from "../harness.js";
import { concat } from "./common.js";

// biome-ignore lint/suspicious/noExplicitAny: both libraries' classes, called the same way.
type Loose = Record<string, any>;
const lib = (api: GraphApi): Loose => api as unknown as Loose;

/** Reads a channel the way a user would: its value, or the name of the error `get` throws. */
function read(api: GraphApi, channel: Loose): unknown {
  try {
    return { value: channel.get() };
  } catch (error) {
    return {
      error: (error as Error).constructor === lib(api).EmptyChannelError ? "empty" : "other",
    };
  }
}

async function throwsInvalidUpdate(api: GraphApi, run: () => unknown): Promise<unknown> {
  const result = await outcome(api, async () => run());
  return (result as { error?: { is?: string } }).error ?? result;
}

export const issue13ChannelPrograms = {
  /** LastValue: empty until written, one value per step, defaults, checkpoint round trip. */
  async lastValue(api: GraphApi) {
    const { LastValue } = lib(api);
    const empty = new LastValue();
    const before = read(api, empty);
    const conflict = await throwsInvalidUpdate(api, () => empty.update([1, 2]));
    empty.update([0]);
    const withDefault = new LastValue(() => "d");
    const restored = withDefault.fromCheckpoint(empty.checkpoint());
    return {
      before,
      conflict,
      after: read(api, empty),
      defaulted: read(api, withDefault),
      restored: read(api, restored),
      fromNothing: read(api, withDefault.fromCheckpoint(undefined)),
      changed: [new LastValue().update([]), new LastValue().update([3])],
    };
  },

  /** Topic: per-step lists, accumulate, unique (with its [seen, values] checkpoint). */
  async topic(api: GraphApi) {
    const { Topic } = lib(api);
    const plain = new Topic();
    plain.update(["a", ["b", "c"]]);
    const first = read(api, plain);
    plain.update([]);
    const unique = new Topic({ unique: true });
    unique.update(["x", "y"]);
    unique.update(["y", "z"]);
    const acc = new Topic({ accumulate: true, unique: true });
    acc.update(["a", "b"]);
    acc.update([["b", "c"]]);
    const restored = new Topic({ unique: true }).fromCheckpoint(unique.checkpoint());
    restored.update(["x", "w"]);
    return {
      first,
      cleared: read(api, plain),
      unique: read(api, unique),
      uniqueCheckpoint: unique.checkpoint(),
      accumulated: read(api, acc),
      restored: read(api, restored),
      emptyCheckpoint: new Topic().checkpoint(),
    };
  },

  /** BinaryOperatorAggregate folds a step; Overwrite bypasses the reducer and wins the step. */
  async binaryOperatorWithOverwrite(api: GraphApi) {
    const { BinaryOperatorAggregate, Overwrite } = lib(api);
    const sum = new BinaryOperatorAggregate(
      (a: number, b: number) => a + b,
      () => 0,
    );
    sum.update([1, 2, 3]);
    const folded = read(api, sum);
    sum.update([4, new Overwrite(100), 7]);
    const overwritten = read(api, sum);
    const twice = await throwsInvalidUpdate(api, () =>
      sum.update([new Overwrite(1), new Overwrite(2)]),
    );
    return { folded, overwritten, twice, restored: read(api, sum.fromCheckpoint(5)) };
  },

  /** AnyValue and EphemeralValue empty on a step without writes; UntrackedValue never checkpoints. */
  async anyEphemeralUntracked(api: GraphApi) {
    const { AnyValue, EphemeralValue, UntrackedValueChannel } = lib(api);
    const any = new AnyValue();
    const anyChanged = [any.update([1, 2]), any.update([]), any.update([])];
    const eph = new EphemeralValue();
    eph.update([undefined]);
    const ephHeld = read(api, eph);
    const ephGuard = await throwsInvalidUpdate(api, () => eph.update([1, 2]));
    const loose = new EphemeralValue(false);
    loose.update([1, 2]);
    const untracked = new UntrackedValueChannel({ initialValueFactory: () => 9 });
    untracked.update([1]);
    return {
      anyChanged,
      any: read(api, any),
      ephHeld,
      ephGuard,
      loose: read(api, loose),
      untrackedCheckpoint: untracked.checkpoint() ?? "none",
      untrackedRestored: read(api, untracked.fromCheckpoint(untracked.checkpoint())),
      name: untracked.lc_graph_name,
    };
  },

  /** A channel object is a state key: a Topic gathers what parallel nodes publish. */
  async channelObjectAsStateKey(api: GraphApi) {
    const { Topic } = lib(api);
    const State = api.Annotation.Root({
      seen: new Topic({ accumulate: true }),
      n: api.Annotation(),
    });
    const graph = new api.StateGraph(State)
      .addNode("a", () => ({ seen: "a" }))
      .addNode("b", () => ({ seen: ["b1", "b2"] }))
      .addNode("c", (s: Values) => ({ n: (s.seen as unknown[]).length }))
      .addEdge(api.START, "a")
      .addEdge(api.START, "b")
      .addEdge(["a", "b"], "c")
      .compile();
    return graph.invoke({ n: 0 });
  },

  /** In a graph, Overwrite replaces a reducer key; two overwrites in one step fail the run. */
  async overwriteInGraph(api: GraphApi) {
    const { Overwrite } = lib(api);
    const State = api.Annotation.Root({
      log: api.Annotation({ reducer: concat, default: () => [] }),
    });
    const reset = new api.StateGraph(State)
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({ log: new Overwrite(["fresh"]) }))
      .addNode("c", () => ({ log: ["c"] }))
      .addEdge(api.START, "a")
      .addEdge("a", "b")
      .addEdge("b", "c")
      .compile();
    const clash = new api.StateGraph(State)
      .addNode("x", () => ({ log: new Overwrite(["x"]) }))
      .addNode("y", () => ({ log: new Overwrite(["y"]) }))
      .addEdge(api.START, "x")
      .addEdge(api.START, "y")
      .compile();
    return {
      reset: await reset.invoke({ log: ["in"] }),
      clash: await outcome(api, () => clash.invoke({ log: [] })),
    };
  },
};

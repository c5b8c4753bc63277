/**
 * A run's input checkpoint on Keel's SQL savers in `sync` mode: held by the saver until step 0's
 * checkpoint commits both in one transaction (one commit where two were), with the same history
 * as before. It commits first when START's routing waits, and when the input fails before step 0.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SqliteSaver } from "../../src/checkpoint/sqlite/index.js";
import { Annotation, MemorySaver, START, StateGraph } from "../../src/index.js";
import { sqliteTestStore, type TestStore } from "../checkpoint/support/databases.js";

const State = Annotation.Root({
  log: Annotation<string[]>({
    reducer: (a, b) => {
      if (b.includes("refused")) throw new Error("refused input");
      return a.concat(b);
    },
    default: () => [],
  }),
});

/** The checkpoints each commit of `saver` wrote, one entry per commit. */
function countCommits(saver: SqliteSaver): number[] {
  const commits: number[] = [];
  const runner = saver.sql;
  const commit = runner.commit.bind(runner);
  runner.commit = (batch) => {
    commits.push(batch.threads.reduce((sum, thread) => sum + thread.checkpoints.length, 0));
    return commit(batch);
  };
  return commits;
}

const chain = (saver: SqliteSaver | MemorySaver) =>
  new StateGraph(State)
    .addNode("one", () => ({ log: ["one"] }))
    .addNode("two", () => ({ log: ["two"] }))
    .addEdge(START, "one")
    .addEdge("one", "two")
    .compile({ checkpointer: saver });

const sync = (thread: string) => ({
  configurable: { thread_id: thread },
  durability: "sync" as const,
});

describe("the input checkpoint shares step 0's commit", () => {
  let test: TestStore | undefined;
  afterEach(async () => {
    await test?.cleanup();
    test = undefined;
  });

  it("one commit holds the input and step 0, and the history is the same as without", async () => {
    test = await sqliteTestStore();
    const saver = SqliteSaver.fromStore(test.store);
    const commits = countCommits(saver);
    const graph = chain(saver);
    await graph.invoke({ log: ["in"] }, sync("held"));
    // The input and step 0 in the first commit, then one per node.
    expect(commits).toEqual([2, 1, 1]);

    const reference = chain(new MemorySaver());
    await reference.invoke({ log: ["in"] }, sync("held"));
    const shape = async (g: typeof graph) => {
      const out: unknown[] = [];
      for await (const s of g.getStateHistory({ configurable: { thread_id: "held" } }))
        out.push({ step: s.metadata?.step, source: s.metadata?.source, next: s.next, ...s.values });
      return out;
    };
    expect(await shape(graph)).toEqual(await shape(reference));
    // A second input on the thread: its input checkpoint shares its step 0's commit too.
    await graph.invoke({ log: ["again"] }, sync("held"));
    expect(commits).toEqual([2, 1, 1, 2, 1, 1]);
  });

  it("an input refused before step 0 leaves its input checkpoint committed", async () => {
    test = await sqliteTestStore();
    const saver = SqliteSaver.fromStore(test.store);
    const commits = countCommits(saver);
    await expect(chain(saver).invoke({ log: ["refused"] }, sync("refused"))).rejects.toThrow(
      "refused input",
    );
    // Committed when the run failed, not left in the saver's queue.
    expect(commits).toEqual([1]);
    const latest = await saver.getTuple({ configurable: { thread_id: "refused" } });
    expect(latest?.metadata.source).toBe("input");
  });

  it("a START branch that waits runs after the input checkpoint committed", async () => {
    test = await sqliteTestStore();
    const saver = SqliteSaver.fromStore(test.store);
    const commits = countCommits(saver);
    let seen: number[] = [];
    const graph = new StateGraph(State)
      .addNode("one", () => ({ log: ["one"] }))
      .addConditionalEdges(START, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        seen = [...commits];
        return "one";
      })
      .compile({ checkpointer: saver });
    await graph.invoke({ log: ["in"] }, sync("branch"));
    expect(seen).toEqual([1]);
    expect(commits).toEqual([1, 1, 1]);
  });
});

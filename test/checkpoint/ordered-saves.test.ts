/**
 * How a run's saves reach the saver (`ORDERED_SAVES`): Keel's SQL savers get a step's checkpoint
 * only once its task writes settled (they commit both in one transaction); any other saver gets
 * them side by side, as LangGraph.js issues them.
 */
import { describe, expect, it } from "vitest";
import type { PendingWrite } from "../../src/checkpoint/base/index.js";
import { SqliteSaver } from "../../src/checkpoint/sqlite/index.js";
import {
  Annotation,
  type BaseCheckpointSaver,
  type Checkpoint,
  type CheckpointMetadata,
  MemorySaver,
  START,
  StateGraph,
} from "../../src/index.js";
import { sqliteTestStore } from "./support/databases.js";

const State = Annotation.Root({ value: Annotation<string>() });

type Config = Parameters<BaseCheckpointSaver["put"]>[0];

/** What a logging saver records: its calls, and when a task's writes settled. */
class Log {
  readonly calls: string[] = [];
  put(metadata: CheckpointMetadata): void {
    this.calls.push(`put:${metadata.step}`);
  }
  /** Records the writes, lets a few turns of the event loop pass, saves them, records that. */
  async writes(writes: PendingWrite[], save: () => Promise<void>): Promise<void> {
    const what = writes.map(([channel]) => channel).join(",");
    this.calls.push(`writes:${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await save();
    this.calls.push(`written:${what}`);
  }
}

class LoggingSqliteSaver extends SqliteSaver {
  readonly log = new Log();
  override put(
    config: Config,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: Record<string, number>,
  ) {
    this.log.put(metadata);
    return super.put(config, checkpoint, metadata, newVersions);
  }
  override putWrites(config: Config, writes: PendingWrite[], taskId: string) {
    return this.log.writes(writes, () => super.putWrites(config, writes, taskId));
  }
}

class LoggingMemorySaver extends MemorySaver {
  readonly log = new Log();
  override put(
    config: Config,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: Record<string, number>,
  ) {
    this.log.put(metadata);
    return super.put(config, checkpoint, metadata, newVersions);
  }
  override putWrites(config: Config, writes: PendingWrite[], taskId: string) {
    return this.log.writes(writes, () => super.putWrites(config, writes, taskId));
  }
}

const graph = (saver: BaseCheckpointSaver) =>
  new StateGraph(State)
    .addNode("one", () => ({ value: "one" }))
    .addEdge(START, "one")
    .compile({ checkpointer: saver });

/** Runs `test` with a logging SQLite saver on a fresh store. */
async function withLoggingSqlite(test: (saver: LoggingSqliteSaver) => Promise<void>) {
  const { store, cleanup } = await sqliteTestStore();
  try {
    if (store.native.dialect !== "sqlite") throw new Error("a SQLite store");
    await test(new LoggingSqliteSaver({ database: store.native.database }));
  } finally {
    await cleanup();
  }
}

describe("the order of a step's saves", () => {
  it("a SQL saver gets the step's checkpoint once its writes settled (one transaction)", () =>
    withLoggingSqlite(async (saver) => {
      const config = { configurable: { thread_id: "t" }, durability: "sync" as const };
      expect(await graph(saver).invoke({ value: "in" }, config)).toEqual({ value: "one" });
      expect(saver.log.calls).toEqual([
        "put:-1",
        "put:0",
        "writes:value",
        "written:value",
        "put:1",
      ]);
    }));

  it("in `async` mode too, a save that has not settled keeps the next one waiting", () =>
    withLoggingSqlite(async (saver) => {
      const config = { configurable: { thread_id: "t" }, durability: "async" as const };
      const twoSteps = new StateGraph(State)
        .addNode("one", () => ({ value: "one" }))
        .addNode("two", () => ({ value: "two" }))
        .addEdge(START, "one")
        .addEdge("one", "two")
        .compile({ checkpointer: saver });
      expect(await twoSteps.invoke({ value: "in" }, config)).toEqual({ value: "two" });
      expect(saver.log.calls).toEqual([
        "put:-1",
        "put:0",
        "writes:value,branch:to:two",
        "written:value,branch:to:two",
        "put:1",
        "writes:value",
        "written:value",
        "put:2",
      ]);
    }));

  it("any other saver gets START's and each task's writes beside the checkpoint that follows", async () => {
    const saver = new LoggingMemorySaver();
    const config = { configurable: { thread_id: "t" }, durability: "sync" as const };
    expect(await graph(saver).invoke({ value: "in" }, config)).toEqual({ value: "one" });
    expect(saver.log.calls).toEqual([
      "put:-1",
      "writes:value,branch:to:one",
      "put:0",
      "written:value,branch:to:one",
      "writes:value",
      "put:1",
      "written:value",
    ]);
  });
});

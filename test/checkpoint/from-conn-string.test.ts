import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PostgresSaver, SqliteSaver } from "../../src/checkpoint/index.js";
import { Annotation, END, START, StateGraph } from "../../src/index.js";
import { createTestDatabase, postgresAvailable } from "../support/postgres.js";

// `SqliteSaver.fromConnString(path)` / `PostgresSaver.fromConnString(url)`, as LangGraph users
// write them: the kernel store is opened and migrated behind the saver.
const State = Annotation.Root({
  count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

function counter() {
  return new StateGraph(State)
    .addNode("inc", () => ({ count: 1 }))
    .addEdge(START, "inc")
    .addEdge("inc", END);
}

async function twoRunsOnOneThread(checkpointer: SqliteSaver | PostgresSaver): Promise<number> {
  const graph = counter().compile({ checkpointer });
  const config = { configurable: { thread_id: "t1" } };
  await graph.invoke({ count: 0 }, config);
  const second = await graph.invoke({ count: 0 }, config);
  return second.count;
}

const postgresUp = await postgresAvailable();

describe("fromConnString", () => {
  it("SqliteSaver.fromConnString opens and migrates a file; the state survives a new saver", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "keel-conn-")), "checkpoints.db");
    const saver = SqliteSaver.fromConnString(path);
    await saver.setup();
    expect(await twoRunsOnOneThread(saver)).toBe(2);
    await saver.close();
    const again = SqliteSaver.fromConnString(path);
    const tuple = await again.getTuple({ configurable: { thread_id: "t1" } });
    expect(tuple?.checkpoint.channel_values.count).toBe(2);
    await again.close();
  });

  it("a URL given to SqliteSaver is refused on setup with the other saver named", async () => {
    const saver = SqliteSaver.fromConnString("postgres://nobody@127.0.0.1:1/none");
    await expect(saver.setup()).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it.skipIf(!postgresUp)("PostgresSaver.fromConnString opens and migrates a database", async () => {
    const database = await createTestDatabase("from_conn_string");
    try {
      const saver = PostgresSaver.fromConnString(database.url);
      await saver.setup();
      expect(await twoRunsOnOneThread(saver)).toBe(2);
      await saver.close();
    } finally {
      await database.drop();
    }
  });
});

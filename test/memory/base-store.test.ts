import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createReactAgent } from "../../src/agents/index.js";
import type { BaseStore } from "../../src/checkpoint/base/index.js";
import { InMemoryStore } from "../../src/checkpoint/base/index.js";
import { DecisionMemory, DecisionMemoryStore } from "../../src/memory/index.js";
import { verifyAuditLog } from "../../src/runtime/index.js";
import { ScriptedChatModel } from "../agents/support/scripted-model.js";
import { postgresRuntimeHarness, sqliteRuntimeHarness } from "../runtime/support/harness.js";
import { postgresAvailable } from "../support/postgres.js";
import { runBaseStoreCases } from "./base-store.case.js";

runBaseStoreCases({ name: "InMemoryStore", fresh: async () => new InMemoryStore() });

const sqlite = sqliteRuntimeHarness();
afterAll(() => sqlite.cleanup());
let n = 0;
runBaseStoreCases({
  name: "DecisionMemoryStore on SQLite",
  fresh: async () => new DecisionMemoryStore(await sqlite.open(`store${n++}`)),
});

if (await postgresAvailable()) {
  const postgres = postgresRuntimeHarness();
  afterAll(() => postgres.cleanup());
  let m = 0;
  runBaseStoreCases({
    name: "DecisionMemoryStore on Postgres",
    // A fresh database per case (a copy of the migrated template) keeps listNamespaces exact.
    fresh: async () => new DecisionMemoryStore(await postgres.open(`store${m++}`)),
  });
}

describe("DecisionMemoryStore as decision memory", () => {
  it("keeps every version as history, audits every change, ranks a query, survives a reopen", async () => {
    const store = await sqlite.open("memory-view");
    const items = new DecisionMemoryStore(store);
    await items.put(["users", "u1"], "prefs", { drink: "green tea", milk: false });
    await items.put(["users", "u1"], "prefs", { drink: "black coffee", milk: true });
    await items.put(["users", "u1"], "travel", { seat: "window", drink: "water" });
    const memory = new DecisionMemory(store, { namespace: "users.u1" });
    const versions = await memory.list({ target: 'item:"prefs"' });
    expect(versions.map((r) => r.status).sort()).toEqual(["active", "superseded"]);
    const superseded = versions.find((r) => r.status === "superseded");
    await expect(memory.deprecate(superseded?.id ?? "")).rejects.toMatchObject({
      code: "MEMORY_INVARIANT",
    });
    expect((await verifyAuditLog(store)).ok).toBe(true);
    const found = await items.search(["users"], { query: "coffee" });
    expect(found.map((i) => i.key)).toEqual(["prefs"]);
    expect(found[0]?.score).toBeGreaterThan(0);
    const again = new DecisionMemoryStore(store);
    expect((await again.get(["users", "u1"], "travel"))?.value).toEqual({
      seat: "window",
      drink: "water",
    });
    await expect(items.put([" padded"], "k", { v: 1 })).rejects.toMatchObject({
      code: "STORE_INVALID",
    });
  });
});

describe("the prebuilt agent with the memory as its store", () => {
  it("gives its tools long-term memory through config.store", async () => {
    const store = await sqlite.open("agent-store");
    const remember = tool(
      async ({ fact }: { fact: string }, config) => {
        const memory = (config as { store?: BaseStore }).store;
        await memory?.put(["users", "ada"], "fact", { fact });
        return "remembered";
      },
      {
        name: "remember",
        description: "Keeps a fact about the user.",
        schema: z.object({ fact: z.string() }),
      },
    );
    const agent = await createReactAgent({
      llm: new ScriptedChatModel([
        {
          content: "",
          tool_calls: [{ id: "c1", name: "remember", args: { fact: "prefers green tea" } }],
        },
        { content: "Noted." },
      ]),
      tools: [remember],
      store: new DecisionMemoryStore(store),
    });
    await agent.invoke({ messages: [new HumanMessage("I prefer green tea")] });
    // Another process (a new store on the same database) finds it, and so does search.
    const later = new DecisionMemoryStore(store);
    expect((await later.get(["users", "ada"], "fact"))?.value).toEqual({
      fact: "prefers green tea",
    });
    expect((await later.search(["users"], { query: "green tea" })).map((i) => i.key)).toEqual([
      "fact",
    ]);
  });
});

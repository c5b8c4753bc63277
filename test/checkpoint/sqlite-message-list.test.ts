/**
 * A message list on SqliteSaver (a real file) while nodes change it every way LangGraph allows:
 * appends, an old message changed in place (a field, a nested argument, a nested record), a
 * replacement by id, a removal by `RemoveMessage`. Every checkpoint read back by a fresh saver
 * (no cache) must hold the list as the next node saw it, and the saver must still store plain
 * appends as appends (its cheap path) and a changed list whole.
 */
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  RemoveMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteSaver } from "../../src/checkpoint/index.js";
import { END, MessagesAnnotation, START, StateGraph } from "../../src/index.js";
import { sqliteTestStore, type TestStore } from "./support/databases.js";

// Long enough that the list is stored as a blob from the first step, not inline in the row.
const PAD = " — padded so that the message list is stored in the blob table, not inline";

type State = typeof MessagesAnnotation.State;
type Update = { messages: BaseMessage[] };

/** What a checkpoint must hold: each message's kind, id and fields, as JSON. */
function shape(messages: readonly BaseMessage[]): string {
  return JSON.stringify(
    messages.map((m) => [
      m.getType(),
      m.id,
      m.content,
      (m as AIMessage).tool_calls ?? null,
      m.additional_kwargs,
    ]),
  );
}

/** Each step's action and the encoding the list's blob must get at that step. */
const steps: Array<[string, "append" | "full", (messages: BaseMessage[]) => BaseMessage[]]> = [
  [
    "a tool call appended",
    "append",
    () => [
      new AIMessage({
        id: "ai-1",
        content: `call${PAD}`,
        tool_calls: [{ id: "c1", name: "add", args: { a: 1, b: 2 }, type: "tool_call" }],
      }),
    ],
  ],
  [
    "its answer appended",
    "append",
    () => [new ToolMessage({ id: "tool-1", content: `3${PAD}`, tool_call_id: "c1" })],
  ],
  [
    "the first message's content changed in place, one appended",
    "full",
    (messages) => {
      (messages[0] as BaseMessage).content = `edited in place${PAD}`;
      return [new AIMessage({ id: "ai-2", content: `after the edit${PAD}` })];
    },
  ],
  ["a plain append again", "append", () => [new AIMessage({ id: "ai-3", content: `more${PAD}` })]],
  [
    "a tool call's argument changed in place, deep in an old message",
    "full",
    (messages) => {
      const call = (messages[1] as AIMessage).tool_calls?.[0];
      (call?.args as { a: number }).a = 99;
      return [new AIMessage({ id: "ai-4", content: `after the deep edit${PAD}` })];
    },
  ],
  [
    "a key added to an old message's nested record, nothing appended",
    "full",
    (messages) => {
      (messages[2] as BaseMessage).additional_kwargs.note = "added in place";
      return [];
    },
  ],
  [
    "an old message replaced by id",
    "full",
    () => [new AIMessage({ id: "ai-2", content: `replaced by id${PAD}` })],
  ],
  [
    "an old message removed, one appended",
    "full",
    () => [
      new RemoveMessage({ id: "tool-1" }),
      new HumanMessage({ id: "h-2", content: `next${PAD}` }),
    ],
  ],
  [
    "a plain append after the removal",
    "append",
    () => [new AIMessage({ id: "ai-5", content: "end" })],
  ],
];

describe("a message list on SqliteSaver, changed every way a node may change it", () => {
  let test: TestStore | undefined;
  afterEach(async () => {
    await test?.cleanup();
    test = undefined;
  });

  it("stores each step's list as the next node sees it, appends as appends", async () => {
    test = await sqliteTestStore();
    const saver = SqliteSaver.fromStore(test.store);
    // What each node saw (the state the previous step's checkpoint must hold), made when it ran.
    const seen: string[] = [];
    let graph = new StateGraph(MessagesAnnotation);
    let previous: string = START;
    for (const [index, [, , act]] of steps.entries()) {
      const name = `s${index}`;
      graph = graph.addNode(name, (state: State): Update => {
        seen.push(shape(state.messages));
        return { messages: act(state.messages) };
      }) as unknown as typeof graph;
      graph.addEdge(previous as typeof START, name as typeof START);
      previous = name;
    }
    graph.addEdge(previous as typeof START, END);
    const app = graph.compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "edited" } };
    const final = (await app.invoke(
      { messages: [new HumanMessage({ id: "h-1", content: `question${PAD}` })] },
      config,
    )) as State;
    seen.push(shape(final.messages));

    // Read back by a saver that has cached nothing.
    const fresh = SqliteSaver.fromStore(test.store);
    const stored = new Map<number, string>();
    for await (const tuple of fresh.list(config)) {
      const step = tuple.metadata?.step ?? -2;
      const messages = tuple.checkpoint.channel_values.messages as BaseMessage[] | undefined;
      if (step >= 0 && messages) stored.set(step, shape(messages));
    }
    expect(stored.size).toBe(steps.length + 1);
    for (let step = 0; step <= steps.length; step++)
      expect(stored.get(step), `checkpoint of step ${step}`).toBe(seen[step]);

    // The list's blob at each node's step: an append where only new messages were added.
    const rows = await fresh.sql.all<{ step: number; encoding: string }>(
      `SELECT c.step AS step, b.encoding AS encoding
         FROM state_checkpoint_blobs b
         JOIN state_checkpoints c
           ON c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns AND c.seq = b.checkpoint_seq
        WHERE b.thread_id = ? AND b.channel = 'messages' AND c.step >= 1
        ORDER BY c.step`,
      ["edited"],
    );
    expect(rows.map((row) => [Number(row.step), row.encoding])).toEqual(
      steps.map(([, encoding], index) => [index + 1, encoding]),
    );
  });
});

/**
 * A message list changed every way a node may change it — appends, an old message changed in
 * place (a field, a nested argument, a nested record), a replacement by id, a removal by
 * `RemoveMessage` — as a graph of one node a change (messages.case.ts runs it on every saver).
 */
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  RemoveMessage,
  ToolMessage,
} from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "../../src/checkpoint/base/index.js";
import { END, MessagesAnnotation, START, StateGraph } from "../../src/index.js";

// Long enough that the list is stored as a blob from the first step, not inline in the row.
const PAD = " — padded so that the message list is stored in the blob table, not inline";

export type State = typeof MessagesAnnotation.State;
type Update = { messages: BaseMessage[] };

/** What a checkpoint must hold: each message's kind, id and fields, as JSON. */
export function shape(messages: readonly BaseMessage[]): string {
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
export const editSteps: Array<
  [string, "append" | "full", (messages: BaseMessage[]) => BaseMessage[]]
> = [
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

/**
 * The graph of `editSteps` on `saver`, and what each node saw (the state the previous step's
 * checkpoint must hold), filled as it runs; `first` is the input's message.
 */
export function editGraph(saver: BaseCheckpointSaver): {
  graph: { invoke(input: unknown, config: unknown): Promise<unknown> };
  seen: string[];
  first: HumanMessage;
} {
  const seen: string[] = [];
  let graph = new StateGraph(MessagesAnnotation);
  let previous: string = START;
  for (const [index, [, , act]] of editSteps.entries()) {
    const name = `s${index}`;
    graph = graph.addNode(name, (state: State): Update => {
      seen.push(shape(state.messages));
      return { messages: act(state.messages) };
    }) as unknown as typeof graph;
    graph.addEdge(previous as typeof START, name as typeof START);
    previous = name;
  }
  graph.addEdge(previous as typeof START, END);
  return {
    graph: graph.compile({ checkpointer: saver }),
    seen,
    first: new HumanMessage({ id: "h-1", content: `question${PAD}` }),
  };
}

/**
 * The benchmark graphs, built the same way on Keel and on LangGraph.js: a 100-node chain (one
 * checkpoint per step) and a loop that appends one message per step.
 */
import {
  END as LG_END,
  START as LG_START,
  Annotation as LgAnnotation,
  StateGraph as LgStateGraph,
} from "@langchain/langgraph";
import { Annotation, END, START, StateGraph } from "../../src/index.js";

export const CHAIN_LENGTH = 100;
export const MESSAGE_STEPS = 500;

export interface Invokable {
  invoke(input: unknown, config: unknown): Promise<unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: each library's own saver type goes in here.
type AnySaver = any;

function chainNames(): string[] {
  return Array.from({ length: CHAIN_LENGTH }, (_, index) => `n${index}`);
}

export function keelChain(checkpointer: AnySaver): Invokable {
  const State = Annotation.Root({ count: Annotation<number>(), label: Annotation<string>() });
  let builder = new StateGraph(State) as AnySaver;
  const names = chainNames();
  for (const name of names)
    builder = builder.addNode(name, (s: { count: number }) => ({ count: s.count + 1 }));
  builder = builder.addEdge(START, names[0]);
  for (let i = 1; i < names.length; i++) builder = builder.addEdge(names[i - 1], names[i]);
  builder = builder.addEdge(names[names.length - 1], END);
  return builder.compile({ checkpointer });
}

export function langgraphChain(checkpointer: AnySaver): Invokable {
  const State = LgAnnotation.Root({ count: LgAnnotation<number>(), label: LgAnnotation<string>() });
  let builder = new LgStateGraph(State) as AnySaver;
  const names = chainNames();
  for (const name of names)
    builder = builder.addNode(name, (s: { count: number }) => ({ count: s.count + 1 }));
  builder = builder.addEdge(LG_START, names[0]);
  for (let i = 1; i < names.length; i++) builder = builder.addEdge(names[i - 1], names[i]);
  builder = builder.addEdge(names[names.length - 1], LG_END);
  return builder.compile({ checkpointer });
}

interface Message {
  role: string;
  content: string;
}

const appendMessages = (a: Message[], b: Message[]) => a.concat(b);

function speak(state: { messages: Message[]; turn: number }) {
  return {
    messages: [
      {
        role: state.turn % 2 ? "assistant" : "user",
        content: `message number ${state.turn}: the quick brown fox jumps over the lazy dog`,
      },
    ],
    turn: state.turn + 1,
  };
}

const route = (state: { turn: number }) => (state.turn >= MESSAGE_STEPS ? "done" : "again");

export function keelMessages(checkpointer: AnySaver): Invokable {
  const State = Annotation.Root({
    messages: Annotation<Message[]>({ reducer: appendMessages, default: () => [] }),
    turn: Annotation<number>(),
  });
  return (new StateGraph(State) as AnySaver)
    .addNode("speak", speak)
    .addEdge(START, "speak")
    .addConditionalEdges("speak", route, { again: "speak", done: END })
    .compile({ checkpointer });
}

export function langgraphMessages(checkpointer: AnySaver): Invokable {
  const State = LgAnnotation.Root({
    messages: LgAnnotation<Message[]>({ reducer: appendMessages, default: () => [] }),
    turn: LgAnnotation<number>(),
  });
  return (new LgStateGraph(State) as AnySaver)
    .addNode("speak", speak)
    .addEdge(LG_START, "speak")
    .addConditionalEdges("speak", route, { again: "speak", done: LG_END })
    .compile({ checkpointer });
}

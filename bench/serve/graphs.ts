import { Annotation, START, StateGraph } from "../../src/index.js";

const State = Annotation.Root({ x: Annotation<number>({ default: () => 0 }) });

/** The benchmark's run: one node that changes nothing. */
export const noop = new StateGraph(State).addNode("noop", () => ({})).addEdge(START, "noop");

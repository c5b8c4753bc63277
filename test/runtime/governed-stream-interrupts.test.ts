/**
 * A governed run's streamed result carries every interrupt of the step it paused in: the engine
 * announces each paused task as it finishes, so the result gathers them rather than keeping the
 * last announcement.
 */
import { describe, expect, it } from "vitest";
import { Annotation, interrupt, MemorySaver, START, StateGraph } from "../../src/index.js";
import { invokeStreaming } from "../../src/runtime/runs/governed-stream.js";

describe("invokeStreaming", () => {
  it("returns the interrupts of every task that paused in the step", async () => {
    const State = Annotation.Root({
      answers: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("left", () => ({ answers: [String(interrupt("left?"))] }))
      .addNode("right", async () => ({ answers: [String(interrupt("right?"))] }))
      .addEdge(START, "left")
      .addEdge(START, "right")
      .compile({ checkpointer: new MemorySaver() });
    const chunks: unknown[] = [];
    const result = (await invokeStreaming(
      graph,
      { answers: [] },
      { configurable: { thread_id: "both" } },
      { streamMode: "updates", onChunk: (chunk: never) => void chunks.push(chunk) },
    )) as { __interrupt__?: Array<{ value: unknown }> };
    expect(result.__interrupt__?.map((item) => item.value).sort()).toEqual(["left?", "right?"]);
    expect(chunks).toHaveLength(2);
  });
});

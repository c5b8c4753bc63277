import {
  AIMessage,
  AIMessageChunk,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { messagesStateReducer as langgraphReducer } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { isKeelError, messagesStateReducer, REMOVE_ALL_MESSAGES } from "../../src/index.js";

const shape = (list: ReturnType<typeof messagesStateReducer>) =>
  list.map((m) => [m.constructor.name, m.id, m.content]);

describe("messagesStateReducer", () => {
  it("coerces message-likes and gives every message an id", () => {
    const merged = messagesStateReducer(
      [],
      [
        ["system", "be brief"],
        { role: "user", content: "hi" },
        "plain text",
        new AIMessageChunk({ content: "streamed", id: "c1" }),
      ],
    );
    expect(merged.map((m) => m.constructor.name)).toEqual([
      "SystemMessage",
      "HumanMessage",
      "HumanMessage",
      "AIMessage",
    ]);
    expect(merged.every((m) => typeof m.id === "string" && m.id.length > 0)).toBe(true);
    // The id is also in lc_kwargs, which is what a checkpoint stores.
    expect(merged.every((m) => m.lc_kwargs.id === m.id)).toBe(true);
    expect(merged[3]?.id).toBe("c1");
  });

  it("replaces by id, removes with RemoveMessage, clears with REMOVE_ALL_MESSAGES", () => {
    const left = [
      new HumanMessage({ id: "1", content: "a" }),
      new AIMessage({ id: "2", content: "b" }),
    ];
    expect(shape(messagesStateReducer(left, new AIMessage({ id: "2", content: "B" })))).toEqual([
      ["HumanMessage", "1", "a"],
      ["AIMessage", "2", "B"],
    ]);
    expect(shape(messagesStateReducer(left, [new RemoveMessage({ id: "1" })]))).toEqual([
      ["AIMessage", "2", "b"],
    ]);
    expect(
      shape(
        messagesStateReducer(left, [
          new SystemMessage({ id: "0", content: "gone too" }),
          new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
          new HumanMessage({ id: "3", content: "fresh" }),
        ]),
      ),
    ).toEqual([["HumanMessage", "3", "fresh"]]);
  });

  it("refuses to remove a message that is not there", () => {
    let caught: unknown;
    try {
      messagesStateReducer(
        [new HumanMessage({ id: "1", content: "a" })],
        new RemoveMessage({ id: "9" }),
      );
    } catch (error) {
      caught = error;
    }
    expect(isKeelError(caught) && caught.code).toBe("INVALID_UPDATE");
  });

  it("agrees with LangGraph.js's reducer", () => {
    const cases = [
      [[], [new HumanMessage({ id: "h", content: "x" })]],
      [
        [new HumanMessage({ id: "h", content: "x" }), new AIMessage({ id: "a", content: "y" })],
        [
          new ToolMessage({ id: "a", content: "r", tool_call_id: "t" }),
          new RemoveMessage({ id: "h" }),
        ],
      ],
      [
        [new HumanMessage({ id: "h", content: "x" })],
        [new AIMessageChunk({ id: "c", content: "z" })],
      ],
    ] as const;
    for (const [left, right] of cases) {
      const ours = messagesStateReducer([...left], [...right]);
      const theirs = langgraphReducer([...left], [...right]);
      expect(shape(ours)).toEqual(shape(theirs as typeof ours));
    }
  });
});

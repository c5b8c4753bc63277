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

  it("keeps a stored list's messages as they are and agrees with LangGraph.js on larger writes", () => {
    // The left list as a run holds it (the reducer's own output), written to by one message,
    // by a few, and by more than the reducer looks up by scanning (a map of ids then).
    const stored = messagesStateReducer(
      [],
      [
        new HumanMessage({ id: "h", content: "q" }),
        new AIMessage({ id: "a", content: "x" }),
        new ToolMessage({ id: "t", content: "1", tool_call_id: "c" }),
        new AIMessage({ id: "a2", content: "y" }),
      ],
    );
    const before = stored.slice();
    const writes = [
      [new ToolMessage({ id: "t2", content: "2", tool_call_id: "c2" })],
      [new AIMessage({ id: "a", content: "X" }), new RemoveMessage({ id: "t" })],
      [
        new RemoveMessage({ id: "h" }),
        new HumanMessage({ id: "h", content: "back" }),
        new AIMessage({ id: "n1", content: "1" }),
        new AIMessage({ id: "n1", content: "1 again" }),
        new AIMessage({ id: "a2", content: "Y" }),
        new RemoveMessage({ id: "n1" }),
        new AIMessage({ id: "n2", content: "2" }),
      ],
    ];
    for (const right of writes) {
      const ours = messagesStateReducer(stored, right);
      const theirs = langgraphReducer(stored.slice(), right) as typeof ours;
      expect(shape(ours)).toEqual(shape(theirs));
      // A new list, the stored one unchanged, its messages the same objects where kept.
      expect(ours).not.toBe(stored);
      expect(stored).toEqual(before);
      for (const message of ours)
        if (before.includes(message)) expect(stored.includes(message)).toBe(true);
    }
    expect(messagesStateReducer(stored, [])[0]).toBe(stored[0]);
  });

  it("converts what a stored list holds that is not a message, as LangGraph.js does", () => {
    const chunk = new AIMessageChunk({ id: "c", content: "streamed" });
    const left = [
      new HumanMessage({ id: "h", content: "q" }),
      chunk,
      { role: "user", content: "a like", id: "l" },
      new AIMessage({ id: "dup", content: "first" }),
      new AIMessage({ id: "dup", content: "second" }),
    ] as unknown as Parameters<typeof messagesStateReducer>[0];
    for (const right of [
      [new AIMessage({ id: "dup", content: "replaced" })],
      [1, 2, 3, 4, 5].map((n) => new AIMessage({ id: n === 3 ? "dup" : `m${n}`, content: `${n}` })),
    ]) {
      const ours = messagesStateReducer(left, right);
      const theirs = langgraphReducer(left, right) as typeof ours;
      expect(shape(ours)).toEqual(shape(theirs));
      expect(ours[1]?.constructor.name).toBe("AIMessage");
      expect(ours[0]).toBe((left as unknown[])[0]);
    }
    // A message without an id gets one where it stands, also in a stored list.
    const bare = new HumanMessage("no id yet");
    const merged = messagesStateReducer([bare], [new AIMessage({ id: "x", content: "y" })]);
    expect(merged[0]).toBe(bare);
    expect(typeof bare.id).toBe("string");
    expect(bare.lc_kwargs.id).toBe(bare.id);
  });
});

import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { jsonSerde } from "../../src/checkpoint/base/index.js";

/**
 * `listItemTexts` lets a saver store a growing list as appends by comparing items, not the whole
 * list's text; joined, the texts must read back as the list.
 */
describe("jsonSerde.listItemTexts", () => {
  it("joined, reads back as the list, and is the text dumps writes for a message list", () => {
    const list = [new HumanMessage("hi"), new AIMessage({ content: "", tool_calls: [] })];
    const joined = `[${jsonSerde.listItemTexts(list).join(",")}]`;
    expect(joined).toBe(jsonSerde.dumps(list));
    const mixed = [1, "x", undefined, new Date(0), { a: [new Map([[1, 2]])] }, list[0]];
    const back = jsonSerde.loads(`[${jsonSerde.listItemTexts(mixed).join(",")}]`);
    expect(back).toEqual(jsonSerde.loads(jsonSerde.dumps(mixed)));
  });

  it("gives an unchanged message the same text again, and a message changed in place a new one", () => {
    const message = new HumanMessage("hi");
    const [before] = jsonSerde.listItemTexts([message]);
    expect(jsonSerde.listItemTexts([message])[0]).toBe(before);
    message.content = "changed";
    expect(jsonSerde.listItemTexts([message])[0]).not.toBe(before);
  });

  it("is not copied by a spread, so a serializer wrapping jsonSerde's dumps keeps whole texts", () => {
    const wrapped = { ...jsonSerde, dumps: (value: unknown) => jsonSerde.dumps(value) };
    expect("listItemTexts" in wrapped).toBe(false);
  });

  it("refuses a value it cannot serialise with CHECKPOINT_NOT_SERIALIZABLE", () => {
    expect(() => jsonSerde.listItemTexts([() => 1])).toThrow(
      expect.objectContaining({ code: "CHECKPOINT_NOT_SERIALIZABLE" }),
    );
  });
});

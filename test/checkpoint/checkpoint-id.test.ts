/** Checkpoint ids: time-ordered, and after their parent's whatever the clock says. */
import { describe, expect, it } from "vitest";
import { newCheckpointId } from "../../src/checkpoint/index.js";

/** A UUIDv7 with the given time, as a worker with that clock would write it. */
function idAt(ms: number, counter = 0): string {
  const time = ms.toString(16).padStart(12, "0");
  const rand = (0x7000 | counter).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8)}-${rand}-8000-000000000000`;
}

describe("newCheckpointId", () => {
  it("ids of one process increase, even many in one millisecond", () => {
    const ids = Array.from({ length: 10_000 }, () => newCheckpointId());
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });

  it("a child sorts after a parent written by a clock an hour ahead", () => {
    const now = Date.now();
    const parent = idAt(now + 3_600_000, 0xffe);
    const child = newCheckpointId(parent, now);
    expect(child > parent).toBe(true);
    // The counter of the parent's millisecond runs out: the next millisecond is borrowed.
    const grandchild = newCheckpointId(child, now);
    expect(grandchild > child).toBe(true);
    expect(grandchild.slice(0, 13)).not.toBe(parent.slice(0, 13));
    // Later ids of this process keep sorting after them, with or without a parent.
    expect(newCheckpointId(undefined, now) > grandchild).toBe(true);
  });

  it("a parent behind the clock, or not a UUIDv7, changes nothing", () => {
    const now = Date.now() + 7_200_000;
    const child = newCheckpointId(idAt(now - 60_000), now);
    expect(child.slice(0, 13)).toBe(idAt(now).slice(0, 13));
    expect(newCheckpointId("not-a-uuid", now) > child).toBe(true);
  });
});

/** Task ids are stored with pending writes: a resumed run finds them only if they never change. */
import { describe, expect, it } from "vitest";
import { taskIdFor } from "../../src/graph/pregel/task.js";

describe("taskIdFor", () => {
  it("gives the ids earlier releases gave (resumes of saved threads depend on them)", () => {
    const checkpoint = "019a2f4c-8c1e-7000-9d2b-5f0e8a41c3d7";
    expect(taskIdFor(checkpoint, "", 3, "pull", "n5", 0)).toBe(
      "d5809bb5-7953-99db-5e11-a815458e9258",
    );
    expect(taskIdFor(checkpoint, "parent:abc", 12, "push", "worker", 7)).toBe(
      "d15f72a9-b153-a8b0-548e-2908d27e3ced",
    );
    expect(taskIdFor("", "", -1, "pull", "__start__", 0)).toBe(
      "5f4ba0ae-1bfc-ec9c-e44b-7f0e5bbae927",
    );
  });
});

import { describe, it } from "vitest";
import { postgresRuntimeHarness } from "../runtime/support/harness.js";
import { postgresAvailable } from "../support/postgres.js";
import { runMemoryCases } from "./memory.case.js";

if (await postgresAvailable()) {
  runMemoryCases(postgresRuntimeHarness());
} else {
  describe.skip("decision memory on postgres (server unreachable, see the warning above)", () => {
    it("skipped", () => {});
  });
}

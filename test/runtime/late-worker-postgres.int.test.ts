import { describe, it } from "vitest";
import { postgresAvailable } from "../support/postgres.js";
import { runLateWorkerCases } from "./late-worker.case.js";
import { postgresRuntimeHarness } from "./support/harness.js";

if (await postgresAvailable()) {
  runLateWorkerCases(postgresRuntimeHarness());
} else {
  describe.skip("a late worker on postgres (server unreachable, see the warning above)", () => {
    it("skipped", () => {});
  });
}

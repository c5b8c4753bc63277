import { describe, it } from "vitest";
import { postgresAvailable } from "../support/postgres.js";
import { batchCases } from "./batches.case.js";
import { postgresJobs } from "./support/harness.js";

if (await postgresAvailable()) {
  batchCases(postgresJobs());
} else {
  describe.skip("the queue.s shared steps on postgres (server unreachable, see the warning above)", () => {
    it("skipped", () => {});
  });
}

import { describe, it } from "vitest";
import { postgresAvailable } from "../support/postgres.js";
import { processCases } from "./processes.case.js";
import { postgresJobs } from "./support/harness.js";

if (await postgresAvailable()) {
  processCases(postgresJobs());
} else {
  describe.skip("jobs across processes on postgres (server unreachable, see the warning above)", () => {
    it("skipped", () => {});
  });
}

import { describe, it } from "vitest";
import { postgresAvailable } from "../support/postgres.js";
import { inProcessCases } from "./in-process.case.js";
import { postgresJobs } from "./support/harness.js";

if (await postgresAvailable()) {
  inProcessCases(postgresJobs());
} else {
  describe.skip("the in-process runner on postgres (server unreachable, see the warning above)", () => {
    it("skipped", () => {});
  });
}

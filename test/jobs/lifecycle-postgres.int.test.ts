import { describe, it } from "vitest";
import { postgresAvailable } from "../support/postgres.js";
import { lifecycleCases } from "./lifecycle.case.js";
import { postgresJobs } from "./support/harness.js";

if (await postgresAvailable()) {
  lifecycleCases(postgresJobs());
} else {
  describe.skip("jobs lifecycle on postgres (server unreachable, see the warning above)", () => {
    it("skipped", () => {});
  });
}

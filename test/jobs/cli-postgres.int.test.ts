import { describe, it } from "vitest";
import { postgresAvailable } from "../support/postgres.js";
import { cliCases } from "./cli.case.js";
import { postgresJobs } from "./support/harness.js";

if (await postgresAvailable()) {
  cliCases(postgresJobs(), { runnerModes: false });
} else {
  describe.skip("keel job on postgres (server unreachable, see the warning above)", () => {
    it("skipped", () => {});
  });
}

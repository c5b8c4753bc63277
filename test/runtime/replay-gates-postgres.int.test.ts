import { describe, it } from "vitest";
import { postgresAvailable } from "../support/postgres.js";
import { runReplayGateCases } from "./replay-gates.case.js";
import { postgresRuntimeHarness } from "./support/harness.js";

if (await postgresAvailable()) {
  runReplayGateCases(postgresRuntimeHarness());
} else {
  describe.skip("replay gate decisions on postgres (server unreachable, see the warning above)", () => {
    it("skipped", () => {});
  });
}

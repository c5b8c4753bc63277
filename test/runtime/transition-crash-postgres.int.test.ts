import { describe, it } from "vitest";
import { postgresAvailable } from "../support/postgres.js";
import { postgresRuntimeHarness } from "./support/harness.js";
import { runTransitionCrashCases } from "./transition-crash.case.js";

if (await postgresAvailable()) {
  runTransitionCrashCases(postgresRuntimeHarness());
} else {
  describe.skip("transition audit across kill -9 on postgres (server unreachable)", () => {
    it("skipped", () => {});
  });
}

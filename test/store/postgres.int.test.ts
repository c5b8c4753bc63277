import { describe, it } from "vitest";
import { postgresAvailable } from "../support/postgres.js";
import { runConcurrentStart } from "./concurrent-start.case.js";
import { runDoctorCases } from "./doctor.case.js";
import { postgresHarness } from "./harness.js";
import { runPluginStorage } from "./plugins.case.js";
import { runStoreServices } from "./services.case.js";
import { runStoreConformance } from "./store.case.js";

if (await postgresAvailable()) {
  runStoreConformance(postgresHarness());
  runStoreServices(postgresHarness());
  runPluginStorage(postgresHarness());
  runConcurrentStart(postgresHarness());
  runDoctorCases(postgresHarness());
} else {
  describe.skip("store conformance: postgres (server unreachable, see the warning above)", () => {
    it("skipped", () => {});
  });
}

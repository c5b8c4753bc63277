import { describe, it } from "vitest";
import { postgresAvailable } from "../support/postgres.js";
import { runRecoverCliCases } from "./recover-cli.case.js";
import { postgresCliDatabases } from "./support/cli-databases.js";

if (await postgresAvailable()) {
  runRecoverCliCases(postgresCliDatabases("recover_cli"));
} else {
  describe.skip("keel runs recover on postgres (server unreachable)", () => {
    it("skipped", () => {});
  });
}

import { describe, it } from "vitest";
import { postgresAvailable } from "../support/postgres.js";
import { runGovernedDocumentCases } from "./governed-documents.case.js";
import { postgresCliDatabases } from "./support/cli-databases.js";

if (await postgresAvailable()) {
  runGovernedDocumentCases(postgresCliDatabases("governed_documents"));
} else {
  describe.skip("governed IR runs on postgres (server unreachable)", () => {
    it("skipped", () => {});
  });
}

import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";
import { sdkCases } from "./sdk.case.js";
import { startTestServer } from "./support.js";

sdkCases(
  "Postgres",
  async () => {
    const database = await createMigratedDatabase("server_sdk");
    const server = await startTestServer({ db: database.url });
    return { ...server, cleanup: () => database.drop() };
  },
  await postgresAvailable(),
);

import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";
import { runLlmNodeCase } from "./llm-node.case.js";

runLlmNodeCase({
  name: "Postgres",
  available: postgresAvailable,
  database: async () => {
    const database = await createMigratedDatabase("llm_node");
    return { db: database.url, drop: database.drop };
  },
});

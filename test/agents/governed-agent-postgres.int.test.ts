import { postgresTestStore } from "../checkpoint/support/databases.js";
import { postgresAvailable } from "../support/postgres.js";
import { runGovernedAgentCase } from "./governed-agent.case.js";

runGovernedAgentCase({
  name: "Postgres",
  available: postgresAvailable,
  open: () => postgresTestStore("agents_governed"),
});

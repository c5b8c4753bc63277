import { sqliteTestStore } from "../checkpoint/support/databases.js";
import { runGovernedAgentCase } from "./governed-agent.case.js";

runGovernedAgentCase({ name: "SQLite", open: () => sqliteTestStore() });

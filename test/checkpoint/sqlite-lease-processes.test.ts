import { runLeaseProcessSuite } from "./lease-processes.case.js";
import { sqliteTestStore } from "./support/databases.js";

runLeaseProcessSuite({ name: "SQLite", open: () => sqliteTestStore() });

import { runDurableSuite } from "./durable.case.js";
import { sqliteTestStore } from "./support/databases.js";

runDurableSuite({ name: "SQLite", open: () => sqliteTestStore() });

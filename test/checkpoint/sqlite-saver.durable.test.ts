import { runDurableSuite } from "./durable.case.js";
import { runRowLayoutSuite } from "./row-layout.case.js";
import { sqliteTestStore } from "./support/databases.js";

runDurableSuite({ name: "SQLite", open: () => sqliteTestStore() });
runRowLayoutSuite({ name: "SQLite", open: () => sqliteTestStore() });

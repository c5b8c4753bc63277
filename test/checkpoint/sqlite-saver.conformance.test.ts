import { SqliteSaver } from "../../src/checkpoint/sqlite/sqlite-saver.js";
import { runSaverConformance } from "./saver.case.js";
import { sqliteTestStore } from "./support/databases.js";

runSaverConformance({
  name: "SqliteSaver",
  newSaver: async () => {
    const { store, cleanup } = await sqliteTestStore();
    return { saver: SqliteSaver.fromStore(store), cleanup };
  },
});

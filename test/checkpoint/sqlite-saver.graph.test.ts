import { SqliteSaver } from "../../src/checkpoint/sqlite/index.js";
import { runGraphConformance } from "./graph.case.js";
import { sqliteTestStore } from "./support/databases.js";

runGraphConformance({
  name: "SqliteSaver",
  newSaver: async () => {
    const { store, cleanup } = await sqliteTestStore();
    return { saver: SqliteSaver.fromStore(store), cleanup };
  },
});

import { PostgresSaver } from "../../src/checkpoint/postgres/postgres-saver.js";
import { postgresAvailable } from "../support/postgres.js";
import { runSaverConformance } from "./saver.case.js";
import { postgresTestStore } from "./support/databases.js";

runSaverConformance({
  name: "PostgresSaver",
  available: postgresAvailable,
  newSaver: async () => {
    const { store, cleanup } = await postgresTestStore("saver_conformance");
    return { saver: PostgresSaver.fromStore(store), cleanup };
  },
});

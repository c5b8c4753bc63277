import { PostgresSaver } from "../../src/checkpoint/postgres/index.js";
import { postgresAvailable } from "../support/postgres.js";
import { runGraphConformance } from "./graph.case.js";
import { postgresTestStore } from "./support/databases.js";

runGraphConformance({
  name: "PostgresSaver",
  available: postgresAvailable,
  newSaver: async () => {
    const { store, cleanup } = await postgresTestStore("saver_graph");
    return { saver: PostgresSaver.fromStore(store), cleanup };
  },
});

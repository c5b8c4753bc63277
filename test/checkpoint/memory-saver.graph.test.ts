import { MemorySaver } from "../../src/checkpoint/index.js";
import { runGraphConformance } from "./graph.case.js";

runGraphConformance({
  name: "MemorySaver",
  newSaver: async () => ({ saver: new MemorySaver(), cleanup: async () => {} }),
});

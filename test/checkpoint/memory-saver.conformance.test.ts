import { MemorySaver } from "../../src/checkpoint/index.js";
import { runSaverConformance } from "./saver.case.js";

runSaverConformance({
  name: "MemorySaver",
  newSaver: async () => ({ saver: new MemorySaver(), cleanup: async () => {} }),
});

import { MemorySaver } from "../../src/checkpoint/index.js";
import { runSaverConformance } from "./saver.case.js";

runSaverConformance({
  name: "MemorySaver",
  newSaver: async () => ({ saver: new MemorySaver(), cleanup: async () => {} }),
  knownGaps: {
    "a fork that reuses version numbers keeps both branches intact":
      "MemorySaver keys values by (channel, version), so a fork that reaches the same version number overwrites the other branch's value",
  },
});

import { describeParity } from "./describe-parity.js";
import { issue13BugPrograms, issue13StreamPrograms } from "./programs/issue13-bugs.js";

describeParity("issue 13 bugs", issue13BugPrograms, {
  unknownStreamMode: {
    doc: "an unknown stream mode is an error",
    keel: { failed: true },
    langgraph: { failed: false },
  },
});
describeParity("issue 13 stream modes", issue13StreamPrograms);

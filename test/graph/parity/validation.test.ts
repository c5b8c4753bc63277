import { describeParity } from "./describe-parity.js";
import { validationPrograms } from "./programs/validation.js";

describeParity("validation", validationPrograms, {
  unreachableNode: {
    doc: "unreachable nodes are accepted",
    keel: { ran: { n: 2 } },
    langgraph: { rejected: "UnreachableNodeError" },
  },
});

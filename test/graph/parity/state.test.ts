import { describeParity } from "./describe-parity.js";
import { statePrograms } from "./programs/state.js";

const invalidUpdate = {
  error: { name: "InvalidUpdateError", isGraphRecursionError: false, isInvalidUpdateError: true },
};

describeParity("state", statePrograms, {
  nonPlainUpdates: {
    doc: "objects that are not plain are INVALID_UPDATE",
    keel: { map: invalidUpdate, classInstance: invalidUpdate },
    langgraph: { map: { ok: { n: 0, log: [] } }, classInstance: { ok: { n: 3, log: [] } } },
  },
});

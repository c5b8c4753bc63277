import { describeParity } from "./describe-parity.js";
import { statePrograms } from "./programs/state.js";

describeParity("state", statePrograms);

import { describeParity } from "./describe-parity.js";
import { issue13PregelPrograms } from "./programs/issue13-pregel.js";

describeParity("issue 13 low-level Pregel", issue13PregelPrograms);

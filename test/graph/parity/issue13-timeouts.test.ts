import { describeParity } from "./describe-parity.js";
import { issue13TimeoutPrograms } from "./programs/issue13-timeouts.js";

describeParity("issue 13 node timeouts", issue13TimeoutPrograms);

import { describeParity } from "./describe-parity.js";
import { issue13StepPrograms } from "./programs/issue13-steps.js";

describeParity("issue 13 inside a step of parallel tasks", issue13StepPrograms);

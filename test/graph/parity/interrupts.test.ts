import { describeParity } from "./describe-parity.js";
import { interruptPrograms } from "./programs/interrupts.js";

describeParity("interrupts", interruptPrograms);

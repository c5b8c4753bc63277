import { describeParity } from "./describe-parity.js";
import { issue13ZodPrograms } from "./programs/issue13-zod.js";

describeParity("issue 13 zod state (keel/zod)", issue13ZodPrograms);

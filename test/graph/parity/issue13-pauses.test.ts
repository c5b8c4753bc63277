import { describeParity } from "./describe-parity.js";
import { issue13PausesPrograms } from "./programs/issue13-pauses.js";

describeParity("issue 13 pauses: streamed, saved, resumed", issue13PausesPrograms);

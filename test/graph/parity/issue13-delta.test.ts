import { describeParity } from "./describe-parity.js";
import { issue13DeltaPrograms } from "./programs/issue13-delta.js";

describeParity("issue 13 DeltaChannel and messagesDeltaReducer", issue13DeltaPrograms);

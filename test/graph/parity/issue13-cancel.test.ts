import { describeParity } from "./describe-parity.js";
import { issue13CancelPrograms } from "./programs/issue13-cancel.js";

describeParity("issue 13 cancellation", issue13CancelPrograms);

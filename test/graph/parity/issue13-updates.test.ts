import { describeParity } from "./describe-parity.js";
import { issue13UpdatesPrograms } from "./programs/issue13-updates.js";

describeParity("issue 13 bulkUpdateState and special updates", issue13UpdatesPrograms);

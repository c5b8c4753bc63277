import { describeParity } from "./describe-parity.js";
import { issue13DefaultsPrograms } from "./programs/issue13-defaults.js";

describeParity("issue 13 node defaults and caching", issue13DefaultsPrograms);

import { describeParity } from "./describe-parity.js";
import {
  issue13DefaultsPrograms,
  issue13ErrorHandlerPrograms,
} from "./programs/issue13-defaults.js";

describeParity("issue 13 node defaults and caching", issue13DefaultsPrograms);
describeParity("issue 13 node error handlers", issue13ErrorHandlerPrograms);

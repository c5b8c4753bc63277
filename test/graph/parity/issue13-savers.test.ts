import { describeParity } from "./describe-parity.js";
import { issue13SaverPrograms } from "./programs/issue13-savers.js";

describeParity("issue 13 checkpointer hooks and mixed node results", issue13SaverPrograms);

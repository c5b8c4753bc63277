import { describeParity } from "./describe-parity.js";
import { issue13FuncPrograms } from "./programs/issue13-func.js";

describeParity("issue 13 functional API", issue13FuncPrograms);

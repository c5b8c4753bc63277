import { describeParity } from "./describe-parity.js";
import { issue13TracingPrograms } from "./programs/issue13-tracing.js";

describeParity("issue 13 LangChain callbacks and streamEvents v2", issue13TracingPrograms);

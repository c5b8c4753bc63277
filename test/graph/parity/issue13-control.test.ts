import { describeParity } from "./describe-parity.js";
import {
  issue13ControlPrograms,
  issue13ExecutionInfoPrograms,
  issue13SmallApiPrograms,
  issue13TimeoutPrograms,
} from "./programs/issue13-control.js";

describeParity("issue 13 run control and error codes", issue13ControlPrograms);
describeParity("issue 13 execution info", issue13ExecutionInfoPrograms);
describeParity("issue 13 timeouts and inherited config", issue13TimeoutPrograms);
describeParity("issue 13 NodeInterrupt, getCurrentTaskInput, addNode([])", issue13SmallApiPrograms);

import { describeParity } from "./describe-parity.js";
import { checkpointPrograms } from "./programs/checkpoints.js";

describeParity("checkpoints", checkpointPrograms);

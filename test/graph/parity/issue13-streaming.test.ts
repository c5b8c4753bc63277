import { describeParity } from "./describe-parity.js";
import { issue13StreamingPrograms } from "./programs/issue13-streaming.js";

describeParity(
  "issue 13 subgraph streaming, tasks/checkpoints modes, streamEvents v3",
  issue13StreamingPrograms,
);

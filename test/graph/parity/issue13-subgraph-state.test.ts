import { describeParity } from "./describe-parity.js";
import { issue13SubgraphStatePrograms } from "./programs/issue13-subgraph-state.js";

describeParity("issue 13 subgraph state through the parent", issue13SubgraphStatePrograms);

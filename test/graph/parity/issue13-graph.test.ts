import { describeParity } from "./describe-parity.js";
import { issue13GraphPrograms } from "./programs/issue13-graph.js";

describeParity("issue 13 Graph, withConfig and batch", issue13GraphPrograms);

import { describeParity } from "./describe-parity.js";
import { issue13NodesPrograms } from "./programs/issue13-nodes.js";

describeParity(
  "issue 13 maxConcurrency, deferred nodes, graph.nodes.x.invoke",
  issue13NodesPrograms,
);

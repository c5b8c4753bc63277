import { describeParity } from "./describe-parity.js";
import {
  issue13BuilderPrograms,
  issue13StatePrograms,
  issue13StorePrograms,
  issue13SubgraphPrograms,
} from "./programs/issue13-state.js";

describeParity("issue 13 state forms", issue13StatePrograms);
describeParity("issue 13 subgraph checkpointers", issue13SubgraphPrograms);
describeParity("issue 13 store", issue13StorePrograms);
describeParity("issue 13 builder", issue13BuilderPrograms);

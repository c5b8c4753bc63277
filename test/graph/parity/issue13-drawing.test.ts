import { describeParity } from "./describe-parity.js";
import { issue13DrawingPrograms } from "./programs/issue13-drawing.js";

describeParity("issue 13 getGraph / drawMermaid", issue13DrawingPrograms);

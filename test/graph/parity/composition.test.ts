import { describeParity } from "./describe-parity.js";
import { compositionPrograms } from "./programs/composition.js";

describeParity("composition", compositionPrograms);

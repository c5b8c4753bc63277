import { describeParity } from "./describe-parity.js";
import { validationPrograms } from "./programs/validation.js";

describeParity("validation", validationPrograms);

import { describeParity } from "./describe-parity.js";
import { routingPrograms } from "./programs/routing.js";

describeParity("routing", routingPrograms);

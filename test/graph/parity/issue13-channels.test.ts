import { describeParity } from "./describe-parity.js";
import { issue13ChannelPrograms } from "./programs/issue13-channels.js";

describeParity("issue 13 channel classes and Overwrite", issue13ChannelPrograms);

import { describeParity } from "./describe-parity.js";
import { issue13PersistencePrograms } from "./programs/issue13-persistence.js";

describeParity(
  "issue 13 saves beside each other (a saver not Keel's own)",
  issue13PersistencePrograms,
);

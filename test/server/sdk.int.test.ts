import { sdkCases } from "./sdk.case.js";
import { startTestServer } from "./support.js";

sdkCases("SQLite", () => startTestServer());

import { sqliteRuntimeHarness } from "../runtime/support/harness.js";
import { runMemoryCases } from "./memory.case.js";

runMemoryCases(sqliteRuntimeHarness());

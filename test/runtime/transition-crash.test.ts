import { sqliteRuntimeHarness } from "./support/harness.js";
import { runTransitionCrashCases } from "./transition-crash.case.js";

runTransitionCrashCases(sqliteRuntimeHarness());

import { runReplayGateCases } from "./replay-gates.case.js";
import { sqliteRuntimeHarness } from "./support/harness.js";

runReplayGateCases(sqliteRuntimeHarness());

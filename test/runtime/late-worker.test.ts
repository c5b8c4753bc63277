import { runLateWorkerCases } from "./late-worker.case.js";
import { sqliteRuntimeHarness } from "./support/harness.js";

runLateWorkerCases(sqliteRuntimeHarness());

import { runConcurrentStart } from "./concurrent-start.case.js";
import { runDoctorCases } from "./doctor.case.js";
import { sqliteHarness } from "./harness.js";
import { runPluginStorage } from "./plugins.case.js";
import { runStoreServices } from "./services.case.js";
import { runStoreConformance } from "./store.case.js";

runStoreConformance(sqliteHarness());
runStoreServices(sqliteHarness());
runPluginStorage(sqliteHarness());
runConcurrentStart(sqliteHarness());
runDoctorCases(sqliteHarness());

import { processCases } from "./processes.case.js";
import { sqliteJobs } from "./support/harness.js";

processCases(sqliteJobs());

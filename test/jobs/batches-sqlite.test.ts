import { batchCases } from "./batches.case.js";
import { sqliteJobs } from "./support/harness.js";

batchCases(sqliteJobs());

import { inProcessCases } from "./in-process.case.js";
import { sqliteJobs } from "./support/harness.js";

inProcessCases(sqliteJobs());

import { lifecycleCases } from "./lifecycle.case.js";
import { sqliteJobs } from "./support/harness.js";

lifecycleCases(sqliteJobs());

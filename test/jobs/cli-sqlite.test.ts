import { cliCases } from "./cli.case.js";
import { sqliteJobs } from "./support/harness.js";

cliCases(sqliteJobs(), { runnerModes: true });

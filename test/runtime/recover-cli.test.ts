import { runRecoverCliCases } from "./recover-cli.case.js";
import { sqliteCliDatabases } from "./support/cli-databases.js";

runRecoverCliCases(sqliteCliDatabases("recover"));

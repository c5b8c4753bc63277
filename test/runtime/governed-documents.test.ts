import { runGovernedDocumentCases } from "./governed-documents.case.js";
import { sqliteCliDatabases } from "./support/cli-databases.js";

runGovernedDocumentCases(sqliteCliDatabases("gov-ir"));

export { lintTools, loadDocumentTools, type ToolExport, toolModules } from "./document-tools.js";
export {
  continueGovernedDocument,
  type DocumentAnswer,
  type DocumentRunResult,
  type DocumentSources,
  type GovernedDocument,
  loadGovernedDocument,
  loadRunDocument,
  respondToDocument,
  type StartDocumentRun,
  startGovernedDocument,
} from "./governed-documents.js";
export { documentGovernance, toolRisk } from "./ir-governance.js";

/** The stored scan or its issues, or CATALOG_NOT_SCANNED (shared with the server). */
export { requireIssues, requireScan } from "../../catalog/index.js";

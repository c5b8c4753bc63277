export { AUDIT_HEAD_ID, auditEventFromRow, chainHash, GENESIS_HASH } from "./audit-chain.js";
export { type AuditSearch, readAuditTrace, searchAudit } from "./audit-read.js";
export {
  type AuditTamperFinding,
  type AuditVerification,
  assertAuditLogIntact,
  type VerifyAuditOptions,
  verifyAuditLog,
} from "./audit-verify.js";
export { type AuditEntry, AuditWriter, type AuditWriterOptions } from "./audit-writer.js";

export { approvalFromRow } from "./approval-rows.js";
export {
  type ApprovalDecisionInput,
  type ApprovalRequest,
  ApprovalService,
  type ApprovalServiceOptions,
} from "./approval-service.js";

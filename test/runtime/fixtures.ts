/** Valid examples of every seed-003 contract, as a producer would send them (wire form). */

export const IDS = {
  event: "0192f5e0-7c1a-7000-8000-000000000001",
  trace: "0192f5e0-7c1a-7000-8000-000000000002",
  task: "0192f5e0-7c1a-7000-8000-000000000003",
  step: "0192f5e0-7c1a-7000-8000-000000000004",
  toolCall: "0192f5e0-7c1a-7000-8000-000000000005",
  audit: "0192f5e0-7c1a-7000-8000-000000000006",
  approval: "0192f5e0-7c1a-7000-8000-000000000007",
} as const;

export const AT = "2026-01-01T12:00:00.000Z";
export const LATER = "2026-01-01T13:00:00.000Z";
export const HASH = "a".repeat(64);

export function messageEvent(): Record<string, unknown> {
  return {
    event_id: IDS.event,
    schema_version: "1.0",
    occurred_at: AT,
    ingested_at: AT,
    source: { channel: "webhook", connector_id: "github", thread_id: null, message_id: "m-1" },
    actor: { actor_type: "integration", actor_id: "github-app" },
    content: { text: "hello", structured: { intent: "timer.set" }, attachment_refs: [], links: [] },
    context: { timezone: "Europe/Berlin", locale: "en-GB", device_id: null },
    correlation: { trace_id: IDS.trace, parent_event_id: null, dedupe_key: "k" },
    security: { sensitivity: "low", redaction_policy_id: "default" },
  };
}

export function routingDecision(): Record<string, unknown> {
  return {
    trace_id: IDS.trace,
    event_id: IDS.event,
    decided_at: AT,
    execution_mode: "gated",
    match: { matched_fastpath: null, matched_rule_ids: ["deploy-needs-approval"], used_llm: false },
    intent: "deploy",
    confidence: null,
    required_scopes: ["deploy:prod"],
    risk_level: "high",
    gates: [{ gate_type: "approval", reason: "production deploy", expires_in_seconds: 3600 }],
    notes: "rule deploy-needs-approval matched",
  };
}

export function retryPolicy(): Record<string, unknown> {
  return { strategy: "exponential", base_delay_ms: 100, max_delay_ms: 10_000, jitter: true };
}

export function task(): Record<string, unknown> {
  return {
    task_id: IDS.task,
    created_at: AT,
    updated_at: AT,
    status: "running",
    trigger_event_id: IDS.event,
    trace_id: IDS.trace,
    current_step_id: IDS.step,
    autonomy_level_at_start: "A2",
    labels: ["deploy"],
    next_wake_time: null,
    cancel_reason: null,
    error: null,
  };
}

export function step(): Record<string, unknown> {
  return {
    step_id: IDS.step,
    task_id: IDS.task,
    name: "deploy",
    status: "running",
    attempt: 0,
    max_attempts: 3,
    retry_policy: retryPolicy(),
    input: { service: "api" },
    checkpoint: {},
    output: null,
    idempotency_key: `${IDS.task}:deploy`,
    started_at: AT,
    ended_at: null,
    error: null,
  };
}

export function toolCall(): Record<string, unknown> {
  return {
    tool_call_id: IDS.toolCall,
    created_at: AT,
    trace_id: IDS.trace,
    task_id: IDS.task,
    step_id: IDS.step,
    event_id: IDS.event,
    connector_id: "k8s",
    tool_name: "ops.deploy",
    action: "apply",
    request_hash: HASH,
    idempotency_key: `${IDS.step}:0`,
    status: "attempted",
    latency_ms: null,
    risk_level: "high",
    autonomy_level: "A2",
  };
}

export function toolResult(): Record<string, unknown> {
  return {
    tool_call_id: IDS.toolCall,
    status: "failed",
    response_hash: HASH,
    error: { code: "TIMEOUT", message: "timed out", retryable: true, details: {} },
    resolved_at: AT,
  };
}

export function auditEvent(): Record<string, unknown> {
  return {
    audit_id: IDS.audit,
    timestamp: AT,
    trace_id: IDS.trace,
    stage: "tool_call",
    refs: {
      event_id: IDS.event,
      task_id: IDS.task,
      step_id: IDS.step,
      tool_call_id: IDS.toolCall,
      approval_id: null,
    },
    type: "tool_call.succeeded",
    summary: "ops.deploy apply succeeded",
    outcome: "success",
    latency_ms: 12,
    tool_name: "ops.deploy",
    connector_id: "k8s",
    risk_level: "high",
    autonomy_level: "A2",
    payload_ref: null,
  };
}

export function approval(): Record<string, unknown> {
  return {
    approval_id: IDS.approval,
    created_at: AT,
    expires_at: LATER,
    status: "pending",
    trace_id: IDS.trace,
    refs: { event_id: IDS.event, task_id: IDS.task, step_id: IDS.step },
    risk_level: "high",
    autonomy_level: "A2",
    what: { tool: "ops.deploy", input: { service: "api" } },
    why: "production deploy needs a person",
    how_to_approve: `keel approvals approve ${IDS.approval}`,
    decision: { by: null, at: null, reason: null },
  };
}

export const VALID_EXAMPLES = {
  MessageEvent: messageEvent,
  RoutingDecision: routingDecision,
  GateSpec: () => ({ gate_type: "dryrun", reason: "preview first", expires_in_seconds: 60 }),
  Task: task,
  Step: step,
  RetryPolicy: retryPolicy,
  ToolCall: toolCall,
  ToolResult: toolResult,
  AuditEvent: auditEvent,
  Approval: approval,
  ErrorDetail: () => ({ code: "X", message: "went wrong" }),
} as const;

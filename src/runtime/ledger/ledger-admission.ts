import { KeelError } from "../../core/index.js";
import type { AuditWriter } from "../audit/audit-writer.js";
import { assertProfileAllows } from "../tools/profiles.js";
import type { RegisteredTool, ToolRegistry } from "../tools/tool-registry.js";
import type { ToolCallRequest } from "./tool-call-request.js";

/** Tools this process already warned about (a one-shot warning per tool, as Python's). */
const warnedDeprecated = new Set<string>();

/**
 * Admits a call or refuses it, audited before the refusal propagates: an idempotency key, a
 * registered tool, a profile that allows it, every permission held, input valid. A call of a
 * deprecated tool is admitted, audited `tool_call.deprecated` and warned about once per process
 * (`announce: false` for a pre-check whose call is announced when it is made).
 */
export async function admitToolCall(
  tools: ToolRegistry,
  audit: AuditWriter,
  request: ToolCallRequest,
  options: { announce?: boolean } = {},
): Promise<RegisteredTool> {
  if (typeof request.idempotencyKey !== "string" || request.idempotencyKey.length === 0) {
    await auditRefusal(audit, request, request.tool, "INVALID_ARGUMENT", {
      reason: "no idempotency key",
    });
    throw new KeelError(
      "INVALID_ARGUMENT",
      `The call of tool "${request.tool}" has no idempotency key.`,
      {
        hint: "Every tool call needs an idempotency key that stays the same across retries of its step.",
      },
    );
  }
  let tool: RegisteredTool;
  try {
    tool = tools.get(request.tool);
  } catch (error) {
    await auditRefusal(audit, request, request.tool, "TOOL_NOT_FOUND", {});
    throw error;
  }
  try {
    assertProfileAllows(request.profile ?? "default", tool.id, tool.spec.side_effects);
  } catch (error) {
    await auditRefusal(audit, request, tool.id, "TOOL_FORBIDDEN", {
      profile: request.profile ?? "default",
    });
    throw error;
  }
  const held = new Set(request.capabilities ?? []);
  const missing = tool.spec.permissions.filter((permission) => !held.has(permission));
  if (missing.length > 0) {
    // A scope violation is audited before it propagates.
    await auditRefusal(
      audit,
      request,
      tool.id,
      "CAPABILITY_MISSING",
      { missing },
      "tool_call.scope_violation",
    );
    throw new KeelError(
      "CAPABILITY_MISSING",
      `Tool "${tool.id}" requires ${missing.map((m) => `"${m}"`).join(", ")}, which the caller does not hold.`,
      {
        details: { tool: tool.id, missing },
        hint: "Grant the capability to the run, or use another tool.",
      },
    );
  }
  const problems = tool.validateInput(request.input);
  if (problems.length > 0) {
    await auditRefusal(audit, request, tool.id, "TOOL_INPUT_INVALID", { problems });
    throw new KeelError("TOOL_INPUT_INVALID", `The input of tool "${tool.id}" fails its schema.`, {
      details: { tool: tool.id, problems },
      hint: problems.map((p) => `${p.path}: ${p.message}`).join("; "),
    });
  }
  if (tool.spec.deprecated && options.announce !== false)
    await announceDeprecated(audit, request, tool);
  return tool;
}

/**
 * The tool of a call `admitToolCall` would admit with nothing to audit (a key, a registered tool
 * its profile allows, every permission held, valid input, not deprecated), checked without a
 * promise; undefined otherwise, and the caller runs `admitToolCall`, which audits why. Every
 * ledgered call takes this path: under `AsyncLocalStorage` each promise a call makes costs it.
 */
export function admittedQuietly(
  tools: ToolRegistry,
  request: ToolCallRequest,
): RegisteredTool | undefined {
  if (typeof request.idempotencyKey !== "string" || request.idempotencyKey.length === 0) return;
  if (!tools.has(request.tool)) return;
  const tool = tools.get(request.tool);
  if (tool.spec.deprecated) return;
  try {
    assertProfileAllows(request.profile ?? "default", tool.id, tool.spec.side_effects);
  } catch {
    return;
  }
  const held = request.capabilities;
  for (const permission of tool.spec.permissions) if (!held?.includes(permission)) return;
  return tool.validateInput(request.input).length === 0 ? tool : undefined;
}

async function announceDeprecated(
  audit: AuditWriter,
  request: ToolCallRequest,
  tool: RegisteredTool,
): Promise<void> {
  const message = `Tool "${tool.id}" ${tool.spec.version} is deprecated; move its callers to its replacement.`;
  await audit.write(request.traceId, {
    stage: "tool_call",
    type: "tool_call.deprecated",
    summary: message,
    outcome: "info",
    refs: {
      task_id: request.taskId ?? null,
      step_id: request.stepId ?? null,
      event_id: request.eventId ?? null,
    },
    toolName: tool.id,
    connectorId: request.connectorId ?? null,
    riskLevel: request.riskLevel,
    autonomyLevel: request.autonomyLevel,
  });
  if (!warnedDeprecated.has(tool.id)) {
    warnedDeprecated.add(tool.id);
    process.emitWarning(message, { type: "DeprecationWarning", code: "KEEL_TOOL_DEPRECATED" });
  }
}

/** Audits a refused tool call (stage `tool_call`, outcome `failure`, the reason as payload). */
export async function auditRefusal(
  audit: AuditWriter,
  request: ToolCallRequest,
  toolId: string,
  code: string,
  details: Record<string, unknown>,
  type = "tool_call.refused",
): Promise<void> {
  await audit.write(request.traceId, {
    stage: "tool_call",
    type,
    summary: `${toolId}: refused (${code})`,
    outcome: "failure",
    refs: {
      task_id: request.taskId ?? null,
      step_id: request.stepId ?? null,
      event_id: request.eventId ?? null,
    },
    toolName: toolId,
    connectorId: request.connectorId ?? null,
    riskLevel: request.riskLevel,
    autonomyLevel: request.autonomyLevel,
    payload: { code, ...details },
  });
}

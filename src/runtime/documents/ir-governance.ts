import { canonicalJson, KeelError } from "../../core/index.js";
import type { RunConfig } from "../../graph/index.js";
import type {
  FiredRule,
  IRDocument,
  IrGovernance,
  IrWait,
  IrWaitDecision,
  ToolDescriber,
  Transition,
} from "../../ir/index.js";
import { RiskLevel } from "../contracts/enums.js";
import { governedNode } from "../runs/governed-node.js";
import { type RunContext, runContextOf, taskIdentityOf } from "../runs/run-context.js";

/**
 * The risk a tool declares with a `risk:<level>` tag (the ToolSpec has no risk field), or null.
 *
 * @example
 * toolRisk({ tags: ["payments", "risk:high"] }); // "high"
 */
export function toolRisk(spec: { tags: readonly string[] }): RiskLevel | null {
  for (const tag of spec.tags) {
    const parsed = RiskLevel.safeParse(tag.startsWith("risk:") ? tag.slice(5) : "");
    if (parsed.success) return parsed.data;
  }
  return null;
}

/**
 * How the governed runtime governs the runs of an IR document: each node execution is a Step
 * whose tool calls (only tools the document names) pass the gates and the ledger at the tool's
 * declared risk; every transition (`ir.transition`) and rule firing (`rule.fired`) is audited on
 * the run's trace; an interrupt is an Approval whose decider gives the answer.
 */
export function documentGovernance(doc: IRDocument): IrGovernance {
  const named = new Set(doc.tools.map((tool) => tool.id));
  return {
    node: (node, state, run, config) =>
      governedNode<Record<string, unknown>, Record<string, unknown> | undefined>((_, ctx) =>
        run(
          async (tool, input, options) => {
            if (!named.has(tool)) {
              // Refused before admission, and audited as admission's refusals are.
              await runContextOf(config).audit.write(ctx.traceId, {
                stage: "tool_call",
                type: "tool_call.refused",
                summary: `${tool}: refused (TOOL_FORBIDDEN): not among ${doc.id}'s tools`,
                outcome: "failure",
                refs: { task_id: ctx.runId, step_id: ctx.step.id, event_id: null },
                toolName: tool,
                payload: { code: "TOOL_FORBIDDEN", node: node.id, key: options?.key ?? null },
              });
              throw new KeelError(
                "TOOL_FORBIDDEN",
                `Node "${node.id}" called the tool "${tool}", which ${doc.id} does not name in its tools.`,
                {
                  details: { node: node.id, tool, named: [...named] },
                  hint: `Add {"id":"${tool}"} to the document's tools, so reviewers see what it may call.`,
                },
              );
            }
            const registered = runContextOf(config).tools;
            const declared = registered.has(tool) ? toolRisk(registered.get(tool).spec) : null;
            const risk = options?.risk ?? declared ?? undefined;
            return ctx.call(tool, input, {
              ...(options?.key !== undefined ? { key: options.key } : {}),
              ...(risk !== undefined ? { risk } : {}),
            });
          },
          describer(named, config),
        ),
      )(state, config),
    transitions: (transitions, fired, config) =>
      auditStep(runContextOf(config), stepKeyOf(config), transitions, fired),
    wait: (wait, config) => decideWait(runContextOf(config), wait),
  };
}

/** Describes the registered tools the document names (what a model node binds). */
function describer(named: ReadonlySet<string>, config: RunConfig): ToolDescriber {
  return (tool) => {
    const registered = runContextOf(config).tools;
    if (!named.has(tool) || !registered.has(tool)) return undefined;
    const { spec } = registered.get(tool);
    return {
      name: spec.name,
      description: spec.description,
      input_schema: spec.input_schema as Record<string, unknown>,
    };
  };
}

/**
 * What names one execution of a step across re-runs: the thread and the engine's task (its
 * deterministic id is the same when the step is re-run from the same checkpoint after a crash).
 */
function stepKeyOf(config: RunConfig): string {
  const thread = String(config.configurable?.thread_id ?? "");
  return `${thread}|${taskIdentityOf(config).taskKey}`;
}

/**
 * Audits a step's rule firings and transitions. The step's checkpoint is written after this, so
 * a crash in between re-runs the step: each event is keyed by the step, its position and its
 * content, and the re-run's identical events are not appended twice (a re-run that decided
 * differently is audited too: both happened).
 */
async function auditStep(
  run: RunContext,
  step: string,
  transitions: readonly Transition[],
  fired: readonly FiredRule[],
): Promise<void> {
  const refs = { task_id: run.grant.runId, event_id: run.grant.eventId };
  const keyOf = (type: string, index: number, body: unknown) =>
    `${type}|${step}|${index}|${canonicalJson(body)}`;
  for (const [index, firing] of fired.entries()) {
    const kinds = firing.actions.map((a) => (a as { kind?: string }).kind ?? "?").join(", ");
    await run.audit.write(run.grant.traceId, {
      stage: "rule",
      type: "rule.fired",
      summary: `rule ${firing.rule} fired${kinds ? ` (${kinds})` : ""}`,
      outcome: "info",
      refs,
      payload: { rule: firing.rule, actions: firing.actions },
      key: keyOf("rule.fired", index, firing),
    });
  }
  for (const [index, t] of transitions.entries()) {
    await run.audit.write(run.grant.traceId, {
      stage: "route",
      type: "ir.transition",
      summary: `${t.from} -> ${t.to}${t.rule ? ` by ${t.rule}` : ""}: ${t.reason}`,
      outcome: "info",
      refs,
      payload: t,
      key: keyOf("ir.transition", index, t),
    });
  }
}

/** Finds (or asks for) the Approval standing for an interrupt, and says what became of it. */
async function decideWait(run: RunContext, wait: IrWait): Promise<IrWaitDecision> {
  const { grant } = run;
  const key = `${grant.runId}:${wait.key}`;
  let approval = await run.approvals.findForGate(grant.runId, key);
  if (!approval) {
    const now = run.clock.now();
    // The interrupt's deadline is the approval's expiry; without one, the runtime's lifetime.
    if (wait.deadline !== null && wait.deadline <= now) return { status: "expired" };
    const ttlSeconds =
      wait.deadline === null
        ? (grant.approvalTtlSeconds ?? run.approvalTtlSeconds)
        : Math.max(1, Math.ceil((wait.deadline - now) / 1000));
    const capability = wait.action.requested_capability;
    const cap = capability === null ? "" : ` --capability ${shellWord(capability)}`;
    approval = await run.approvals.request({
      traceId: grant.traceId,
      refs: { eventId: grant.eventId, taskId: grant.runId },
      riskLevel: grant.risk,
      autonomyLevel: grant.autonomy,
      what: {
        kind: "interrupt",
        node: wait.node,
        rule: wait.rule,
        prompt: wait.action.prompt,
        payload: wait.action.interrupt_payload,
      },
      why: `${wait.action.prompt} (rule ${wait.rule}, after node ${wait.node})`,
      requiredCapability: capability,
      ttlSeconds,
      gateKey: key,
      howToApprove: `keel approvals approve <approval_id>${cap} --value '<answer as JSON>' --reason "<why>"   (or: keel approvals deny <approval_id>${cap} --reason "<why>")`,
    });
  }
  switch (approval.status) {
    case "pending":
      return {
        status: "pending",
        pause: {
          kind: "approval",
          tool: wait.rule,
          step: wait.node,
          approval_id: approval.approval_id,
          expires_at: approval.expires_at,
          how_to_continue: approval.how_to_approve,
        },
      };
    case "approved":
      return {
        status: "answered",
        answer: (await run.approvals.answerOf(approval.approval_id)) ?? {},
      };
    case "denied":
      return {
        status: "denied",
        by: approval.decision.by ?? "an operator",
        reason: approval.decision.reason,
      };
    case "expired":
      return { status: "expired" };
  }
}

/** A word a POSIX shell reads back unchanged. */
function shellWord(word: string): string {
  return /^[\w.:@/+=-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

import { userInfo } from "node:os";
import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import { type Approval, ApprovalService, ApprovalStatus } from "../../runtime/index.js";
import type { CliModule } from "../command.js";
import { printResult, reportError, table } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { humanTime } from "../when.js";
import { parseJsonOption } from "./document-runs.js";
import {
  continuationJson,
  continueAfterDecision,
  describeAfterDecision,
  limitFlag,
  prepareContinuation,
  withRuntimeStore,
} from "./runtime-cli.js";

interface ListFlags extends StoreCliOptions {
  status?: string;
  limit?: string;
}
interface DecideFlags extends StoreCliOptions {
  by?: string;
  reason?: string;
  capability?: string[];
  resume?: boolean;
  value?: string;
}

/**
 * `keel approvals list|show|approve|deny`: the gated actions waiting for a person. Deciding
 * records who, when, why and the capability; then the run waiting for it continues here, with the
 * application module it recorded (`start({ app })`), once none of its approvals is pending
 * (`--no-resume` leaves that to its owner, `GovernedRuntime.resume` or `keel runs resume`).
 */
export const approvalsCommands: CliModule = {
  register(program: Command): void {
    const approvals = program
      .command("approvals")
      .description("Approvals: gated actions waiting for a person to approve or deny them.");

    withStoreOptions(
      approvals
        .command("list")
        .description("Approvals, newest first (pending ones past their expiry are marked expired).")
        .option("--status <status>", `only this status (${ApprovalStatus.options.join(", ")})`)
        .option("--limit <n>", "at most this many (default 100)"),
    ).action((flags: ListFlags) =>
      withRuntimeStore(flags, async (store, audit, options) => {
        const status =
          flags.status === undefined ? undefined : ApprovalStatus.safeParse(flags.status);
        if (status && !status.success) {
          throw new KeelError("INVALID_ARGUMENT", `Unknown approval status "${flags.status}".`, {
            hint: `Use one of ${ApprovalStatus.options.join(", ")}.`,
          });
        }
        const list = await new ApprovalService({ store, audit }).list({
          status: status?.data,
          limit: limitFlag(flags.limit, 100),
        });
        printResult(options, { ok: true, approvals: list }, () =>
          list.length === 0
            ? "no approvals"
            : table(
                ["approval", "status", "risk", "what", "expires", "why"],
                list.map((a) => [
                  a.approval_id,
                  a.status,
                  a.risk_level,
                  String(
                    a.what.tool ??
                      (a.what.kind === "interrupt" ? `question after ${String(a.what.node)}` : "-"),
                  ),
                  humanTime(a.expires_at),
                  a.why.length > 60 ? `${a.why.slice(0, 57)}...` : a.why,
                ]),
              ),
        );
      }).catch((error: unknown) => reportError(flags, error)),
    );

    withStoreOptions(
      approvals
        .command("show <id>")
        .description("One approval: what, why, how to approve, the decision."),
    ).action((id: string, flags: StoreCliOptions) =>
      withRuntimeStore(flags, async (store, audit, options) => {
        const approval = await new ApprovalService({ store, audit }).get(id);
        printResult(options, { ok: true, approval }, () => describe(approval));
      }).catch((error: unknown) => reportError(flags, error)),
    );

    for (const verdict of ["approve", "deny"] as const) {
      withStoreOptions(
        approvals
          .command(`${verdict} <id>`)
          .description(
            verdict === "approve"
              ? "Approve: the gated action may run when its run is resumed."
              : "Deny: the gated action must not run; its step fails when the run is resumed.",
          )
          .option("--by <who>", "who decides (default: the current user)")
          .option("--reason <text>", "why")
          .option(
            "--capability <name...>",
            "capabilities you hold, as you assert them (Keel has no identity source yet); the approval's required_capability must be among them",
          )
          .option("--no-resume", "only decide: do not continue the run that waits for it")
          .option(
            "--value <json>",
            "the answer, when the approval stands for a question of an IR document (an interrupt): the state update the run continues with",
          ),
      ).action((id: string, flags: DecideFlags) =>
        withRuntimeStore(flags, async (store, audit, options) => {
          const service = new ApprovalService({ store, audit });
          const decision = {
            by: flags.by ?? userInfo().username,
            reason: flags.reason ?? null,
            capabilities: flags.capability ?? [],
            ...(flags.value !== undefined
              ? { answer: parseJsonOption(flags.value, "--value") }
              : {}),
          };
          if (flags.resume !== false) {
            await prepareContinuation(store, await service.get(id), decision.answer);
          }
          const approval =
            verdict === "approve"
              ? await service.approve(id, decision)
              : await service.deny(id, decision);
          const runId = approval.refs.task_id;
          const run = await continueAfterDecision(store, runId, flags.resume);
          printResult(options, { ok: true, approval, run: run && continuationJson(run) }, () =>
            [
              `${approval.status} ${approval.approval_id} by ${approval.decision.by} at ${approval.decision.at}`,
              describeAfterDecision(run, runId),
            ]
              .filter(Boolean)
              .join("\n"),
          );
        }).catch((error: unknown) => reportError(flags, error)),
      );
    }
  },
};

function describe(a: Approval): string {
  return [
    `approval   ${a.approval_id}`,
    `status     ${a.status}`,
    `trace      ${a.trace_id}`,
    `run        ${a.refs.task_id ?? "-"}   step ${a.refs.step_id ?? "-"}`,
    `risk       ${a.risk_level} at autonomy ${a.autonomy_level}`,
    `requires   ${a.required_capability ?? "(any operator)"}`,
    `created    ${humanTime(a.created_at)}   expires ${humanTime(a.expires_at)}`,
    `why        ${a.why}`,
    `what       ${JSON.stringify(a.what)}`,
    a.status === "pending"
      ? `to decide  ${a.how_to_approve}`
      : `decision   ${a.status} by ${a.decision.by ?? "-"} at ${a.decision.at ?? "-"}${a.decision.reason ? `: ${a.decision.reason}` : ""}`,
  ].join("\n");
}

import type { Command } from "commander";
import { KeelError, parseJsonObject } from "../../core/index.js";
import {
  ChannelEnum,
  IngestService,
  type RawInput,
  Router,
  validateRoutingConfig,
} from "../../runtime/index.js";
import type { CliModule } from "../command.js";
import { printResult, reportError } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { autonomyFlag, readJson, readText, withRuntimeStore } from "./runtime-cli.js";

interface IngestFlags extends StoreCliOptions {
  text?: string;
  file?: string;
  channel?: string;
  connector?: string;
  structured?: string;
  messageId?: string;
  routing?: string;
  autonomy?: string;
}

/**
 * `keel ingest`: turns a message (`--text`, `--file` or standard input) into a MessageEvent,
 * suppresses duplicates, stores and audits it; with `--routing <file>` also routes it. Exit 0
 * accepted, 3 duplicate, 1 rejected (the problems are printed).
 */
export const ingestCommands: CliModule = {
  register(program: Command): void {
    withStoreOptions(
      program
        .command("ingest")
        .description(
          "Ingest a message as a MessageEvent (deduplicated, audited); JSON input becomes a webhook body.",
        )
        .option("--text <text>", "the message text")
        .option("--file <path>", "read the message from a file (JSON object: a webhook body)")
        .option(
          "--channel <channel>",
          `the channel (${ChannelEnum.options.join(", ")}; default webhook)`,
        )
        .option("--connector <id>", "the connector id (default cli)")
        .option("--structured <json>", "structured content / intent hints, as a JSON object")
        .option("--message-id <id>", "the source's message id (what deduplication keys on)")
        .option("--routing <file>", "route the event with this routing configuration (JSON)")
        .option(
          "--autonomy <level>",
          "autonomy level the routing's gate is decided at (default A2)",
        ),
    ).action((flags: IngestFlags) =>
      withRuntimeStore(flags, async (store, audit, options) => {
        const raw = await rawInput(flags);
        const router = flags.routing ? await loadRouter(flags.routing) : undefined;
        const outcome = await new IngestService({ store, audit }).ingest(raw);
        if (outcome.status === "rejected") {
          printResult(
            options,
            { ok: false, status: "rejected", traceId: outcome.traceId, problems: outcome.problems },
            () =>
              [
                `rejected (trace ${outcome.traceId}):`,
                ...outcome.problems.map((p) => `  ${p.path}: ${p.message} (${p.hint})`),
              ].join("\n"),
          );
          process.exitCode = 1;
          return;
        }
        if (outcome.status === "duplicate") {
          printResult(
            options,
            {
              ok: false,
              status: "duplicate",
              originalEventId: outcome.originalEventId,
              originalTraceId: outcome.originalTraceId,
            },
            () =>
              `duplicate of event ${outcome.originalEventId} (trace ${outcome.originalTraceId}); suppressed`,
          );
          process.exitCode = 3;
          return;
        }
        const event = outcome.event;
        const routed = router
          ? await router.route(event, { autonomy: autonomyFlag(flags.autonomy, "A2"), audit })
          : undefined;
        printResult(
          options,
          {
            ok: true,
            status: "accepted",
            event,
            ...(routed
              ? { routing: routed.decision, gate: routed.gate.decision, handler: routed.handler }
              : {}),
          },
          () =>
            [
              `accepted event ${event.event_id}`,
              `trace ${event.correlation.trace_id}   (keel audit ${event.correlation.trace_id})`,
              ...(routed
                ? [
                    `routed ${routed.decision.execution_mode} → ${routed.handler ?? "no handler"}, risk ${routed.decision.risk_level}, gate ${routed.gate.decision}`,
                    `  ${routed.decision.notes ?? ""}`,
                  ]
                : []),
            ].join("\n"),
        );
      }).catch((error: unknown) => reportError(flags, error)),
    );
  },
};

async function rawInput(flags: IngestFlags): Promise<RawInput> {
  const sources = [flags.text !== undefined, flags.file !== undefined].filter(Boolean).length;
  if (sources > 1) {
    throw new KeelError("INVALID_ARGUMENT", "Give the message with --text or --file, not both.");
  }
  const text =
    flags.text ?? (flags.file !== undefined ? await readText(flags.file) : await readStdin());
  if (text.trim().length === 0) {
    throw new KeelError("INVALID_ARGUMENT", "The message is empty.", {
      hint: "Pass --text, --file <path>, or pipe the message on standard input.",
    });
  }
  const channel = flags.channel === undefined ? undefined : ChannelEnum.safeParse(flags.channel);
  if (channel && !channel.success) {
    throw new KeelError("INVALID_ARGUMENT", `Unknown channel "${flags.channel}".`, {
      hint: `Use one of ${ChannelEnum.options.join(", ")}.`,
    });
  }
  const structured = flags.structured === undefined ? undefined : parseObject(flags.structured);
  // A JSON object is a webhook body; a message id (for deduplication) needs the webhook form too.
  const body =
    (flags.text === undefined ? parseJsonObject(text) : undefined) ??
    (flags.messageId !== undefined ? { text: text.trim() } : undefined);
  if (body) {
    return {
      kind: "webhook",
      connectorId: flags.connector ?? "cli",
      body: structured ? { ...body, ...structured } : body,
      channel: channel?.data,
      messageId: flags.messageId,
    };
  }
  return {
    kind: "cli",
    text: text.trim(),
    channel: channel?.data,
    connectorId: flags.connector,
    structured,
  };
}

async function loadRouter(path: string): Promise<Router> {
  const config = await readJson(path);
  const checked = validateRoutingConfig(config);
  if (!checked.ok) {
    throw new KeelError("ROUTING_INVALID", `The routing configuration ${path} is invalid.`, {
      details: { problems: checked.problems },
      hint: checked.problems.map((p) => `${p.path}: ${p.message}`).join("; "),
    });
  }
  return new Router(checked.value);
}

function parseObject(text: string): Record<string, unknown> {
  const value = parseJsonObject(text);
  if (!value) {
    throw new KeelError("INVALID_ARGUMENT", "--structured must be a JSON object.", {
      hint: `For example --structured '{"intent":"refund.issue","amount":250}'.`,
    });
  }
  return value;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return "";
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

import { type Clock, newId } from "../../core/index.js";
import { tooDeepProblem } from "../../ir/problems.js";
import { validateContract } from "../contracts/catalog.js";
import type { Sensitivity } from "../contracts/enums.js";
import {
  MESSAGE_EVENT_SCHEMA_VERSION,
  type MessageEvent,
  type MessageEventInput,
} from "../contracts/message-event.js";
import type { ValidationProblem, ValidationResult } from "../validation/problems.js";
import { dedupeKeyFor } from "./dedupe-key.js";
import type { RawCliMessage, RawInput, RawTick, RawWebhook } from "./raw-input.js";

/** Defaults for what a raw input does not say. */
export interface NormalizeDefaults {
  /** IANA time zone; `UTC` by default. */
  timezone?: string;
  /** BCP 47 locale; `en` by default. */
  locale?: string;
  /** `low` by default. */
  sensitivity?: Sensitivity;
  /** `default` by default. */
  redactionPolicyId?: string;
}

/** What the normaliser needs besides the input. */
export interface NormalizeOptions {
  clock: Clock;
  /** Makes event and trace ids; UUIDv7 by default. */
  newId?: () => string;
  defaults?: NormalizeDefaults;
}

const DELIVERY_ID_HEADERS = [
  "webhook-id",
  "idempotency-key",
  "x-idempotency-key",
  "x-github-delivery",
];

/**
 * Turns a raw input (a webhook body, a CLI message, a scheduled tick) into a MessageEvent that
 * satisfies the seed-003 contract. The normaliser sets `event_id`, `ingested_at` and the
 * `dedupe_key`, and creates the `trace_id` (or joins the parent's trace) that no later stage
 * changes. Returns every problem instead of throwing.
 *
 * @example
 * const result = normalizeInput({ kind: "cli", text: "deploy api" }, { clock: systemClock });
 * if (result.ok) console.log(result.value.correlation.trace_id);
 */
export function normalizeInput(
  raw: RawInput,
  options: NormalizeOptions,
): ValidationResult<MessageEvent> {
  // Before the dedupe key hashes it (recursively): a deeper input would overflow the stack.
  const deep = tooDeepProblem(raw, "The input");
  if (deep) return { ok: false, problems: [deep] };
  const ingestedAt = options.clock.now();
  const draft = draftFor(raw, ingestedAt);
  if ("problems" in draft) return { ok: false, problems: draft.problems };
  const makeId = options.newId ?? newId;
  const defaults = options.defaults ?? {};
  const source = {
    channel: draft.channel,
    connector_id: draft.connectorId,
    thread_id: draft.threadId ?? null,
    message_id: draft.messageId ?? null,
  };
  const content = {
    text: draft.text ?? null,
    structured: draft.structured,
    attachment_refs: [],
    links: [],
  };
  const event: MessageEventInput = {
    event_id: makeId(),
    schema_version: MESSAGE_EVENT_SCHEMA_VERSION,
    occurred_at: toIso(draft.occurredAt ?? ingestedAt),
    ingested_at: toIso(ingestedAt),
    source,
    actor: { actor_type: draft.actor.actorType, actor_id: draft.actor.actorId },
    content,
    context: {
      timezone: raw.timezone ?? defaults.timezone ?? "UTC",
      locale: raw.locale ?? defaults.locale ?? "en",
      device_id: raw.deviceId ?? null,
    },
    correlation: {
      trace_id: raw.parent?.traceId ?? makeId(),
      parent_event_id: raw.parent?.eventId ?? null,
      dedupe_key: dedupeKeyFor({
        ...source,
        actor_id: draft.actor.actorId,
        ...content,
      }),
    },
    security: {
      sensitivity: raw.sensitivity ?? defaults.sensitivity ?? "low",
      redaction_policy_id: defaults.redactionPolicyId ?? "default",
    },
  };
  return validateContract("MessageEvent", event);
}

interface Draft {
  channel: MessageEventInput["source"]["channel"];
  connectorId: string;
  threadId?: string | undefined;
  messageId?: string | undefined;
  text?: string | undefined;
  structured: Record<string, unknown>;
  actor: { actorType: MessageEventInput["actor"]["actor_type"]; actorId: string };
  occurredAt?: number | undefined;
}

function draftFor(raw: RawInput, ingestedAt: number): Draft | { problems: ValidationProblem[] } {
  switch (raw.kind) {
    case "webhook":
      return webhookDraft(raw);
    case "cli":
      return cliDraft(raw);
    case "tick":
      return tickDraft(raw, ingestedAt);
  }
}

function webhookDraft(raw: RawWebhook): Draft | { problems: ValidationProblem[] } {
  const body = parseBody(raw.body);
  if ("problems" in body) return body;
  const headers = lowerCaseHeaders(raw.headers);
  const deliveryId = DELIVERY_ID_HEADERS.map((name) => headers[name]).find((v) => v);
  const stamp = headers["webhook-timestamp"];
  const stampMs =
    stamp !== undefined && /^\d{1,12}$/.test(stamp) ? Number(stamp) * 1000 : undefined;
  if (raw.occurredAt !== undefined && !isInstant(raw.occurredAt)) {
    return { problems: [badInstant("/occurredAt", raw.occurredAt)] };
  }
  const bodyText = typeof body.value.text === "string" ? body.value.text : undefined;
  return {
    channel: raw.channel ?? "webhook",
    connectorId: raw.connectorId,
    threadId: raw.threadId,
    messageId: raw.messageId ?? deliveryId,
    text: raw.text ?? bodyText,
    structured: body.value,
    actor: raw.actor ?? { actorType: "integration", actorId: raw.connectorId },
    occurredAt: raw.occurredAt ?? stampMs,
  };
}

function cliDraft(raw: RawCliMessage): Draft {
  return {
    channel: raw.channel ?? "webhook",
    connectorId: raw.connectorId ?? "cli",
    threadId: raw.threadId,
    text: raw.text,
    structured: raw.structured ?? {},
    actor: { actorType: "user", actorId: raw.actorId ?? "cli" },
  };
}

function tickDraft(raw: RawTick, ingestedAt: number): Draft | { problems: ValidationProblem[] } {
  const problems: ValidationProblem[] = [];
  if (raw.scheduleId.length === 0) {
    problems.push({
      code: "string_too_short",
      path: "/scheduleId",
      message: "The schedule id is empty.",
      expected: "a schedule id",
      actual: '""',
      hint: "Name the schedule that fired, e.g. nightly-report.",
    });
  }
  if (!isInstant(raw.scheduledAt)) problems.push(badInstant("/scheduledAt", raw.scheduledAt));
  if (problems.length > 0) return { problems };
  const instant = toIso(raw.scheduledAt);
  return {
    channel: "scheduler",
    connectorId: "scheduler",
    messageId: `${raw.scheduleId}@${instant}`,
    structured: {
      schedule_id: raw.scheduleId,
      scheduled_for: instant,
      lag_ms: Math.max(0, ingestedAt - raw.scheduledAt),
      ...(raw.payload ?? {}),
    },
    actor: { actorType: "system", actorId: "scheduler" },
    occurredAt: raw.scheduledAt,
  };
}

function parseBody(
  body: unknown,
): { value: Record<string, unknown> } | { problems: ValidationProblem[] } {
  let value = body;
  if (typeof body === "string") {
    try {
      value = JSON.parse(body);
    } catch (error) {
      return {
        problems: [
          {
            code: "json_invalid",
            path: "/",
            message: `The webhook body is not JSON: ${(error as Error).message}.`,
            expected: "a JSON object",
            actual: body.length > 80 ? `${body.slice(0, 79)}…` : body,
            hint: "Send the body as JSON (Content-Type: application/json).",
          },
        ],
      };
    }
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return {
      problems: [
        {
          code: "model_type",
          path: "/",
          message: "The webhook body must be a JSON object.",
          expected: "object",
          actual: Array.isArray(value) ? "array" : value === null ? "null" : typeof value,
          hint: 'Wrap the payload in an object, e.g. {"items": [...]}.',
        },
      ],
    };
  }
  return { value: value as Record<string, unknown> };
}

function lowerCaseHeaders(headers: RawWebhook["headers"]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    out[name.toLowerCase()] = typeof value === "string" ? value : value?.[0];
  }
  return out;
}

function isInstant(value: number): boolean {
  return Number.isFinite(value) && !Number.isNaN(new Date(value).getTime());
}

function badInstant(path: string, value: number): ValidationProblem {
  return {
    code: "value_error",
    path,
    message: "Not a time in Unix milliseconds.",
    expected: "finite number",
    actual: String(value),
    hint: 'Pass an instant such as Date.parse("2026-01-01T00:00:00Z").',
  };
}

function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

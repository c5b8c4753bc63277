import type { ActorType, Channel, Sensitivity } from "../contracts/enums.js";

/** Who sent an input, when the source says. */
export interface RawActor {
  actorType: ActorType;
  actorId: string;
}

/** Fields every kind of raw input may set; the normaliser fills the rest. */
interface RawCommon {
  /** The event that triggered this one; the new event joins its trace. */
  parent?: { eventId: string; traceId: string };
  sensitivity?: Sensitivity;
  timezone?: string;
  locale?: string;
  deviceId?: string;
}

/**
 * A webhook delivery: a JSON body (parsed, or the raw text) and its headers. A delivery id from
 * the `webhook-id` (Standard Webhooks), `idempotency-key`, `x-idempotency-key` or
 * `x-github-delivery` header becomes the event's `message_id`; `webhook-timestamp` (seconds)
 * becomes `occurred_at`.
 */
export interface RawWebhook extends RawCommon {
  kind: "webhook";
  connectorId: string;
  body: unknown;
  headers?: Record<string, string | readonly string[] | undefined>;
  channel?: Channel;
  messageId?: string;
  threadId?: string;
  /** The message text; taken from a string `text` field of the body when not given. */
  text?: string;
  actor?: RawActor;
  /** The source's timestamp in Unix milliseconds. */
  occurredAt?: number;
}

/**
 * A message typed at the CLI. The seed has no CLI channel: it arrives on `webhook` (or the
 * channel given) from connector `cli`, sent by a user.
 */
export interface RawCliMessage extends RawCommon {
  kind: "cli";
  text: string;
  channel?: Channel;
  connectorId?: string;
  actorId?: string;
  structured?: Record<string, unknown>;
  threadId?: string;
}

/**
 * A scheduled tick: schedule `scheduleId` fired for the instant `scheduledAt` (Unix ms). The
 * message id is `<scheduleId>@<ISO instant>`, so a tick fired twice for the same instant (two
 * workers, a restart) is the same event.
 */
export interface RawTick extends RawCommon {
  kind: "tick";
  scheduleId: string;
  scheduledAt: number;
  payload?: Record<string, unknown>;
}

/** Anything the normaliser turns into a MessageEvent. */
export type RawInput = RawWebhook | RawCliMessage | RawTick;

import { z } from "zod";
import { ActorType, ChannelEnum, Sensitivity } from "./enums.js";
import { Bcp47Locale, IanaTimezone, JsonObject, NonEmpty, Timestamp, Uuid } from "./primitives.js";

/** The contract version of MessageEvent that Keel writes; any `1.x` is read. */
export const MESSAGE_EVENT_SCHEMA_VERSION = "1.0";

/** Where an event came from. */
export const EventSource = z.strictObject({
  channel: ChannelEnum,
  connector_id: NonEmpty,
  thread_id: z.string().nullable().default(null),
  message_id: z.string().nullable().default(null),
});

/** Who produced an event. */
export const EventActor = z.strictObject({
  actor_type: ActorType,
  actor_id: NonEmpty,
});

/** What an event says. Attachments are referenced by id, never inlined. */
export const EventContent = z.strictObject({
  text: z.string().nullable().default(null),
  structured: JsonObject.default({}),
  attachment_refs: z.array(NonEmpty).default([]),
  links: z.array(z.string()).default([]),
});

/** Where and for whom an event is interpreted. */
export const EventContext = z.strictObject({
  timezone: IanaTimezone,
  locale: Bcp47Locale,
  device_id: z.string().nullable().default(null),
});

/** How an event relates to others. `trace_id` is created at ingestion and never changes. */
export const EventCorrelation = z.strictObject({
  trace_id: Uuid,
  parent_event_id: Uuid.nullable().default(null),
  dedupe_key: z.string().nullable().default(null),
});

/** How an event's content must be handled. */
export const EventSecurity = z.strictObject({
  sensitivity: Sensitivity,
  redaction_policy_id: NonEmpty,
});

/**
 * What came in: one normalised input from any channel (seed 003, `MessageEvent`).
 *
 * @example
 * const result = validateContract("MessageEvent", body);
 * if (!result.ok) console.table(result.problems);
 */
export const MessageEvent = z.strictObject({
  event_id: Uuid,
  schema_version: z.string().regex(/^1\.\d+$/, {
    error: `a 1.x contract version such as "${MESSAGE_EVENT_SCHEMA_VERSION}"`,
  }),
  occurred_at: Timestamp,
  ingested_at: Timestamp,
  source: EventSource,
  actor: EventActor,
  content: EventContent,
  context: EventContext,
  correlation: EventCorrelation,
  security: EventSecurity,
});
export type MessageEvent = z.output<typeof MessageEvent>;
export type MessageEventInput = z.input<typeof MessageEvent>;

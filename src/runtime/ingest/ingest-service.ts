import { sql } from "kysely";
import { type Clock, canonicalJson, newId, systemClock } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import type { AuditWriter } from "../audit/audit-writer.js";
import type { MessageEvent } from "../contracts/message-event.js";
import { runtimeDb } from "../db/tables.js";
import type { ValidationProblem } from "../validation/problems.js";
import { type NormalizeDefaults, normalizeInput } from "./normalize.js";
import type { RawInput } from "./raw-input.js";

/** What happened to one input. */
export type IngestOutcome =
  | { status: "accepted"; event: MessageEvent }
  | {
      status: "duplicate";
      /** The suppressed event, as it would have been. */
      event: MessageEvent;
      /** The event that holds the dedupe key, and its trace (where the suppression is audited). */
      originalEventId: string;
      originalTraceId: string;
    }
  | { status: "rejected"; problems: ValidationProblem[]; traceId: string };

/** What an IngestService needs. */
export interface IngestServiceOptions {
  store: Store;
  audit: AuditWriter;
  clock?: Clock;
  newId?: () => string;
  defaults?: NormalizeDefaults;
  /** How long a dedupe key suppresses repeats; 24 hours by default. */
  dedupeWindowMs?: number;
}

/** Twenty-four hours: how long a dedupe key suppresses repeats by default. */
export const DEFAULT_DEDUPE_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * The front door: normalises raw input, suppresses a duplicate seen inside the dedupe window,
 * stores the accepted event and audits all three outcomes (`event.ingested`,
 * `event.duplicate_suppressed`, `event.rejected`). The dedupe key is claimed with one atomic
 * upsert, so concurrent deliveries of the same input admit exactly one event.
 *
 * @example
 * const ingest = new IngestService({ store, audit });
 * const outcome = await ingest.ingest({ kind: "webhook", connectorId: "github", body, headers });
 * if (outcome.status === "accepted") route(outcome.event);
 */
export class IngestService {
  readonly #store: Store;
  readonly #audit: AuditWriter;
  readonly #clock: Clock;
  readonly #newId: () => string;
  readonly #defaults: NormalizeDefaults | undefined;
  readonly #windowMs: number;

  constructor(options: IngestServiceOptions) {
    this.#store = options.store;
    this.#audit = options.audit;
    this.#clock = options.clock ?? systemClock;
    this.#newId = options.newId ?? newId;
    this.#defaults = options.defaults;
    this.#windowMs = options.dedupeWindowMs ?? DEFAULT_DEDUPE_WINDOW_MS;
  }

  /** Ingests one raw input. Never throws for bad input: it is rejected, audited, and returned. */
  async ingest(raw: RawInput): Promise<IngestOutcome> {
    const normalized = normalizeInput(raw, {
      clock: this.#clock,
      newId: this.#newId,
      defaults: this.#defaults,
    });
    if (!normalized.ok) {
      const traceId = raw.parent?.traceId ?? this.#newId();
      await this.#audit.write(traceId, {
        stage: "normalize",
        type: "event.rejected",
        summary: `A ${raw.kind} input failed the MessageEvent contract (${normalized.problems.length} problem(s))`,
        outcome: "failure",
        payload: { problems: normalized.problems },
      });
      return { status: "rejected", problems: normalized.problems, traceId };
    }
    const event = normalized.value;
    // One clock reading for the whole ingestion: the event's ingested_at is the stored one.
    const now = Date.parse(event.ingested_at);
    return runtimeDb(this.#store)
      .transaction()
      .execute(async (tx): Promise<IngestOutcome> => {
        const key = event.correlation.dedupe_key;
        if (key !== null) {
          const claimed = await sql<{ event_id: string; trace_id: string }>`
            INSERT INTO state_dedupe_keys (id, event_id, trace_id, claimed_at, expires_at)
            VALUES (${key}, ${event.event_id}, ${event.correlation.trace_id}, ${now}, ${now + this.#windowMs})
            ON CONFLICT (id) DO UPDATE SET
              event_id = excluded.event_id, trace_id = excluded.trace_id,
              claimed_at = excluded.claimed_at, expires_at = excluded.expires_at
            WHERE state_dedupe_keys.expires_at <= excluded.claimed_at
            RETURNING event_id, trace_id`.execute(tx);
          if (claimed.rows[0]?.event_id !== event.event_id) {
            const holder = await tx
              .selectFrom("state_dedupe_keys")
              .select(["event_id", "trace_id"])
              .where("id", "=", key)
              .executeTakeFirstOrThrow();
            await this.#audit.write(
              holder.trace_id,
              {
                stage: "normalize",
                type: "event.duplicate_suppressed",
                summary: `A repeat of event ${holder.event_id} from ${event.source.channel}/${event.source.connector_id} was suppressed`,
                outcome: "suppressed",
                refs: { event_id: holder.event_id },
                connectorId: event.source.connector_id,
                payload: { suppressed_event_id: event.event_id, dedupe_key: key },
              },
              tx,
            );
            return {
              status: "duplicate",
              event,
              originalEventId: holder.event_id,
              originalTraceId: holder.trace_id,
            };
          }
        }
        await tx
          .insertInto("state_events")
          .values({
            id: event.event_id,
            trace_id: event.correlation.trace_id,
            channel: event.source.channel.replaceAll("_", "-"),
            connector_id: event.source.connector_id,
            dedupe_key: key,
            event_json: canonicalJson(event),
            occurred_at: Date.parse(event.occurred_at),
            ingested_at: now,
          })
          .execute();
        await this.#audit.write(
          event.correlation.trace_id,
          {
            stage: "normalize",
            type: "event.ingested",
            summary: `Event from ${event.source.channel}/${event.source.connector_id}${event.content.text ? `: ${truncate(event.content.text)}` : ""}`,
            outcome: "success",
            refs: { event_id: event.event_id },
            connectorId: event.source.connector_id,
          },
          tx,
        );
        return { status: "accepted", event };
      });
  }

  /** A stored event by id, or undefined. */
  async getEvent(eventId: string): Promise<MessageEvent | undefined> {
    const row = await runtimeDb(this.#store)
      .selectFrom("state_events")
      .select("event_json")
      .where("id", "=", eventId)
      .executeTakeFirst();
    return row ? (JSON.parse(row.event_json) as MessageEvent) : undefined;
  }
}

function truncate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

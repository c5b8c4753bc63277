import { hashValue } from "../../core/index.js";

/** The parts of an event that decide whether two events are the same input. */
export interface DedupeFacts {
  channel: string;
  connector_id: string;
  message_id: string | null;
  thread_id: string | null;
  actor_id: string;
  text: string | null;
  structured: Record<string, unknown>;
  attachment_refs: readonly string[];
  links: readonly string[];
}

/**
 * The dedupe key of an event: a sha256 (hex) of its identifying facts, stable across processes
 * and machines because it hashes canonical JSON.
 *
 * When the source gives a native message id, the key is (channel, connector, message id): a
 * redelivery is the same event even if its body changed. Otherwise the key covers who sent what
 * where (actor, thread, content) and never the times, so a retried delivery of the same body
 * gets the same key.
 *
 * @example
 * dedupeKeyFor({ channel: "sms", connector_id: "twilio", message_id: "SM1", ... }) // "3f0a…"
 */
export function dedupeKeyFor(facts: DedupeFacts): string {
  if (facts.message_id !== null) {
    return hashValue({
      v: 1,
      channel: facts.channel,
      connector_id: facts.connector_id,
      message_id: facts.message_id,
    });
  }
  return hashValue({
    v: 1,
    channel: facts.channel,
    connector_id: facts.connector_id,
    thread_id: facts.thread_id,
    actor_id: facts.actor_id,
    text: facts.text,
    structured: facts.structured,
    attachment_refs: facts.attachment_refs,
    links: facts.links,
  });
}

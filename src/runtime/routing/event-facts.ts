import { type FactInput, float, str } from "../../rules/index.js";
import type { MessageEvent } from "../contracts/message-event.js";

/**
 * The facts a MessageEvent puts in the rule engine's working memory, so routing rules can match
 * it with CLIPS patterns. Enum values are symbols, free text is a CLIPS string:
 *
 * | fact | from |
 * |---|---|
 * | `(channel webhook)` | `source.channel` |
 * | `(connector "github")` | `source.connector_id` |
 * | `(actor user "ana")` | `actor` |
 * | `(sensitivity low)` | `security.sensitivity` |
 * | `(intent "refund.issue")` | `content.structured.intent`, when a string |
 * | `(text "…")` | `content.text`, when present |
 * | `(field amount 250)` | each top-level scalar of `content.structured` (strings as strings, booleans TRUE/FALSE) |
 * | `(link "…")`, `(attachment "…")` | each link and attachment ref |
 * | `(triggered)` | when `correlation.parent_event_id` is set |
 *
 * @example
 * eventFacts(event) // [{ relation: "channel", fields: ["webhook"] }, …]
 */
export function eventFacts(event: MessageEvent): FactInput[] {
  const facts: FactInput[] = [
    { relation: "channel", fields: [event.source.channel] },
    { relation: "connector", fields: [str(event.source.connector_id)] },
    { relation: "actor", fields: [event.actor.actor_type, str(event.actor.actor_id)] },
    { relation: "sensitivity", fields: [event.security.sensitivity] },
  ];
  const intent = intentOf(event);
  if (intent !== null) facts.push({ relation: "intent", fields: [str(intent)] });
  if (event.content.text !== null)
    facts.push({ relation: "text", fields: [str(event.content.text)] });
  for (const key of Object.keys(event.content.structured).sort()) {
    const atom = scalar(event.content.structured[key]);
    if (atom !== undefined) facts.push({ relation: "field", fields: [key, atom] });
  }
  for (const link of event.content.links) facts.push({ relation: "link", fields: [str(link)] });
  for (const ref of event.content.attachment_refs)
    facts.push({ relation: "attachment", fields: [str(ref)] });
  if (event.correlation.parent_event_id !== null) facts.push({ relation: "triggered", fields: [] });
  return facts;
}

/** The event's intent hint: `content.structured.intent` when it is a non-empty string. */
export function intentOf(event: MessageEvent): string | null {
  const intent = event.content.structured.intent;
  return typeof intent === "string" && intent.length > 0 ? intent : null;
}

function scalar(value: unknown): unknown {
  if (typeof value === "string") return str(value);
  if (typeof value === "number") return Number.isInteger(value) ? value : float(value);
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  return undefined;
}

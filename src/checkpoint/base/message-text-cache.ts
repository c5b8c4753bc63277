/**
 * The serialised text of LangChain messages, remembered per message object.
 *
 * A saver serialises a channel's whole value at every step it changes; for a message list that
 * is every message again at every step (quadratic in the conversation), and LangChain's
 * `toJSON` (aliases walked up the prototype chain, keys snake-cased, values escaped) costs about
 * 7 µs a message. A message is usually never changed after it is made, but a node may change one
 * in place, and the stored text must then change too. So the text is kept with a fingerprint —
 * one native `JSON.stringify` of the fields `toJSON` reads (`lc_kwargs`' keys, each read from the
 * object as `toJSON` does), about 14 times cheaper — and reused only while the fingerprint is
 * the same.
 *
 * Only messages qualify (`lc_namespace` `["langchain_core", "messages"]`): their `toJSON` output
 * depends on those fields alone (no `lc_attributes` or `lc_secrets`). A message whose fields hold
 * anything plain JSON would not say exactly (a Map, a class instance, NaN) is not cached.
 */

import { isPlainJson } from "./plain-json.js";

interface Remembered {
  fingerprint: string;
  text: string;
}

interface MessageLike {
  lc_namespace: unknown;
  lc_kwargs: Record<string, unknown>;
}

const texts = new WeakMap<object, Remembered>();

/** Marks a field that is `undefined` (JSON would write `null`, which `toJSON` keeps apart). */
const UNDEFINED = "\u0000undefined";

/**
 * The text of `value` when it is a message: the remembered one while its fields are unchanged,
 * else `serialise(value)`, remembered. `undefined` when `value` is not a cacheable message (the
 * caller serialises it as usual).
 */
export function messageText(
  value: object,
  serialise: (value: object) => string,
): string | undefined {
  if (!isMessage(value)) return undefined;
  const fingerprint = fingerprintOf(value);
  if (fingerprint === undefined) return undefined;
  const remembered = texts.get(value);
  if (remembered !== undefined && remembered.fingerprint === fingerprint) return remembered.text;
  const text = serialise(value);
  texts.set(value, { fingerprint, text });
  return text;
}

function isMessage(value: object): value is MessageLike {
  const namespace = (value as Partial<MessageLike>).lc_namespace;
  return (
    Array.isArray(namespace) &&
    namespace.length === 2 &&
    namespace[0] === "langchain_core" &&
    namespace[1] === "messages" &&
    typeof (value as Partial<MessageLike>).lc_kwargs === "object"
  );
}

/** The fields `toJSON` reads, as JSON text; undefined when JSON cannot say them exactly. */
function fingerprintOf(message: MessageLike): string | undefined {
  const kwargs = message.lc_kwargs;
  const fields: unknown[] = [];
  for (const key in kwargs) {
    const field =
      key in message ? (message as unknown as Record<string, unknown>)[key] : kwargs[key];
    if (field === undefined) {
      fields.push(key, UNDEFINED);
      continue;
    }
    if (!isPlainJson(field, 32)) return undefined;
    fields.push(key, field);
  }
  return JSON.stringify(fields);
}

/**
 * The serialised text of LangChain messages, remembered per message object.
 *
 * A saver serialises a channel's whole value at every step it changes; for a message list that
 * is every message again at every step (quadratic in the conversation), and LangChain's
 * `toJSON` (aliases walked up the prototype chain, keys snake-cased, values escaped) costs about
 * 7 µs a message. A message is usually never changed after it is made, but a node may change one
 * in place, and the stored text must then change too. So the text is kept with a snapshot of
 * the fields `toJSON` reads (`lc_kwargs`' keys, each read from the object as `toJSON` does; a
 * private deep copy, since a node may change a nested object) and reused only while the fields
 * are equal to it, compared in one walk that stops at the first difference. The walk replaced a
 * fingerprint (one native `JSON.stringify` of the fields, compared as text), which cost about
 * three times as much: a message list is checked whole at every step, so this is the
 * serializer's cost per message already stored.
 *
 * Only messages qualify (`lc_namespace` `["langchain_core", "messages"]`): their `toJSON` output
 * depends on those fields alone (no `lc_attributes` or `lc_secrets`). A message whose fields hold
 * anything plain JSON would not say exactly (a Map, a class instance, NaN) is not cached.
 *
 * A new or changed message's text is written from those same fields (`fastText`) instead of
 * through `toJSON`, which costs about as much again as the fingerprint: the message's class
 * decides everything else `toJSON` writes (its id, its key aliases), learnt once per class and
 * checked once against `serialise` (a class whose text differs, or that has secrets or extra
 * attributes, always goes through `serialise`). Fields holding an object with a key LangChain
 * escapes (`lc`, `__lc_escaped__`) or the serializer's tag (`$keel`) go through `serialise` too.
 */

import { isPlainJson } from "./plain-json.js";

interface Remembered {
  /** The fields the text was written from (`fieldsOf`'s key, value, …), deep-copied. */
  snapshot: unknown[];
  text: string;
}

/** A plain object in a snapshot: its keys in their order and their values. */
class SnapshotRecord {
  constructor(
    readonly keys: string[],
    readonly values: unknown[],
  ) {}
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
  const remembered = texts.get(value);
  if (remembered !== undefined && fieldsUnchanged(value, remembered.snapshot))
    return remembered.text;
  const fields = fieldsOf(value);
  if (fields === undefined) return undefined;
  const text = fastText(value, fields, serialise) ?? serialise(value);
  // The fields list becomes the snapshot (nothing else keeps it): its values copied in place.
  for (let index = 1; index < fields.length; index += 2) fields[index] = snapshotOf(fields[index]);
  texts.set(value, { snapshot: fields, text });
  return text;
}

/**
 * Whether `message`'s fields, read as `fieldsOf` reads them, equal `snapshot` (same keys in the
 * same order, equal values): then `JSON.stringify` would write the same text, and the snapshot
 * holds plain JSON only, so they are plain JSON too.
 */
function fieldsUnchanged(message: MessageLike, snapshot: unknown[]): boolean {
  const kwargs = message.lc_kwargs;
  let at = 0;
  for (const key in kwargs) {
    if (snapshot[at] !== key) return false;
    // `fieldsOf`'s read in one property lookup when the field is set (the `in` test, a second
    // lookup by a key the site has not seen before, only for a field that reads undefined).
    let field = (message as unknown as Record<string, unknown>)[key];
    if (field === undefined && !(key in message)) field = kwargs[key];
    const was = snapshot[at + 1];
    at += 2;
    if (field === undefined ? was !== UNDEFINED : field === UNDEFINED || !sameJson(field, was))
      return false;
  }
  return at === snapshot.length;
}

/** Whether `value` equals `was` (a snapshot: plain JSON, its records as `SnapshotRecord`s). */
function sameJson(value: unknown, was: unknown): boolean {
  if (typeof was !== "object" || was === null) return value === was;
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(was)) {
    if (!Array.isArray(value) || value.length !== was.length) return false;
    for (let index = 0; index < was.length; index++) {
      if (!sameJson(value[index], was[index])) return false;
    }
    return true;
  }
  if (Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const { keys, values } = was as SnapshotRecord;
  let index = 0;
  for (const key in value) {
    if (keys[index] !== key) return false;
    if (!sameJson((value as Record<string, unknown>)[key], values[index])) return false;
    index += 1;
  }
  return index === keys.length;
}

/** A private deep copy of a plain JSON value (`fieldsOf` admitted it), records as key lists. */
function snapshotOf(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(snapshotOf);
  const keys: string[] = [];
  const values: unknown[] = [];
  for (const key in value) {
    keys.push(key);
    values.push(snapshotOf((value as Record<string, unknown>)[key]));
  }
  return new SnapshotRecord(keys, values);
}

/** What `toJSON` writes for every message of one class, learnt from its first message. */
interface ClassText {
  /** `{"$keel":"lc","v":{"lc":1,"type":"constructor","id":[…],"kwargs":{` */
  head: string;
  aliases: Readonly<Record<string, string>>;
  /** Key of `lc_kwargs` → its JSON key text (alias or snake case), quoted. */
  keys: Map<string, string>;
}

/** Per class (prototype): its text parts, or false when its messages go through `serialise`. */
const classTexts = new WeakMap<object, ClassText | false>();

/** The text `serialise(message)` gives, written from `fields`; undefined when it cannot be. */
function fastText(
  message: MessageLike,
  fields: unknown[],
  serialise: (value: object) => string,
): string | undefined {
  const proto = Object.getPrototypeOf(message) as object | null;
  if (proto === null) return undefined;
  const known = classTexts.get(proto);
  if (known !== undefined) return known === false ? undefined : writeText(known, fields);
  // Learnt from this message and checked against `serialise` before any message relies on it.
  const learnt = learnClass(message);
  if (learnt === undefined) {
    classTexts.set(proto, false);
    return undefined;
  }
  const text = writeText(learnt, fields);
  // A message this class's text cannot be written for (see writeText): learnt from a later one.
  if (text === undefined) return undefined;
  const checked = text === serialise(message);
  classTexts.set(proto, checked ? learnt : false);
  return checked ? text : undefined;
}

/** An object key LangChain's `toJSON` escapes, or the serializer's own tag, in JSON text. */
const ESCAPED = /"(?:lc|__lc_escaped__|\$keel)":/;

/**
 * The message's text from its fields, or undefined when only `serialise` writes it exactly: a
 * field holding an object with a key `toJSON` escapes (or the serializer's tag), or two keys
 * under one JSON name.
 */
function writeText(known: ClassText, fields: unknown[]): string | undefined {
  let body = "";
  const written = new Set<string>();
  for (let index = 0; index < fields.length; index += 2) {
    const key = fields[index] as string;
    const keyText = keyTextOf(known, key);
    // Two keys under one JSON name: `toJSON` keeps the first's place, the last's value.
    if (written.has(keyText)) return undefined;
    written.add(keyText);
    const field = fields[index + 1];
    let fieldText = UNDEFINED_TEXT;
    if (field !== UNDEFINED) {
      fieldText = JSON.stringify(field);
      if (typeof field === "object" && field !== null && ESCAPED.test(fieldText)) return undefined;
    }
    body += `${body === "" ? "" : ","}${keyText}:${fieldText}`;
  }
  return `${known.head}${body}}}}`;
}

/** A key of `lc_kwargs` as `toJSON` writes it (its alias or its snake case), quoted. */
function keyTextOf(known: ClassText, key: string): string {
  let keyText = known.keys.get(key);
  if (keyText === undefined) {
    keyText = JSON.stringify(known.aliases[key] || snakeCase(key));
    known.keys.set(key, keyText);
  }
  return keyText;
}

/** How the serializer writes `undefined` (serde.ts's tag). */
const UNDEFINED_TEXT = '{"$keel":"undefined"}';

/**
 * The class parts `toJSON` reads from the prototype chain (as it reads them); undefined for a
 * class with secrets or extra attributes, or one that is not serialisable.
 */
function learnClass(message: MessageLike): ClassText | undefined {
  const self = message as unknown as Record<string, unknown>;
  if (self.lc_serializable !== true || !Array.isArray(self.lc_id)) return undefined;
  const aliases: Record<string, string> = {};
  for (let at = Object.getPrototypeOf(message); at; at = Object.getPrototypeOf(at)) {
    const secrets = Reflect.get(at, "lc_secrets", message) as object | undefined;
    const attributes = Reflect.get(at, "lc_attributes", message) as object | undefined;
    if (secrets && Object.keys(secrets).length > 0) return undefined;
    if (attributes && Object.keys(attributes).length > 0) return undefined;
    Object.assign(aliases, Reflect.get(at, "lc_aliases", message));
  }
  return {
    head: `{"$keel":"lc","v":{"lc":1,"type":"constructor","id":${JSON.stringify(self.lc_id)},"kwargs":{`,
    aliases,
    keys: new Map(),
  };
}

/** LangChain's `snakeCase` (load/map_keys), which `toJSON` applies to every key. */
function snakeCase(key: string): string {
  return key
    .replace(/([A-Z]+)([A-Z][a-z0-9]+)/g, "$1_$2")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[-_\s]+/g, "_")
    .toLowerCase();
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

/** The fields `toJSON` reads (key, value, …); undefined when JSON cannot say them exactly. */
function fieldsOf(message: MessageLike): unknown[] | undefined {
  const kwargs = message.lc_kwargs;
  const fields: unknown[] = [];
  for (const key in kwargs) {
    const field =
      key in message ? (message as unknown as Record<string, unknown>)[key] : kwargs[key];
    if (field === undefined) {
      fields.push(key, UNDEFINED);
      continue;
    }
    // The marker itself as a field's text would read as undefined.
    if (field === UNDEFINED || !isPlainJson(field, 32)) return undefined;
    fields.push(key, field);
  }
  return fields;
}

import { KeelError } from "../../core/index.js";
import { jsonNumber, jsonString } from "./json-text.js";
import { isLcDocument, isLcSerializable, reviveLc, reviveLcDocument } from "./langchain-values.js";
import { messageText } from "./message-text-cache.js";
import { isPlainJson } from "./plain-json.js";

/**
 * How savers turn channel values, writes and metadata into text and back.
 *
 * Every serialised value is stored with the serializer's `format` number. A saver reading a
 * value written by a newer format calls `assertReadableFormat`, which refuses it with a clear
 * `CHECKPOINT_FORMAT` error instead of mis-reading it.
 *
 * @example
 * const text = jsonSerde.dumps({ at: new Date(0), tags: new Set(["a"]) });
 * jsonSerde.loads(text); // { at: Date(0), tags: Set { "a" } }
 */
export interface Serializer {
  /** The format number written with every value; bump it when the encoding changes. */
  readonly format: number;
  /** Encodes a value. Throws `CHECKPOINT_NOT_SERIALIZABLE` for functions and symbols. */
  dumps(value: unknown): string;
  /** Decodes text written by `dumps` (of this format or an older one). */
  loads(text: string): unknown;
  /**
   * Optional: the text of each item of a list, such that `[` + the texts joined by `,` + `]` is a
   * text `loads` reads back as the list. A saver that stores a growing list as appends then
   * compares the items it already stored one by one, and writes only the new ones' texts,
   * instead of the whole list's text at every step. Without it, savers use `dumps`.
   */
  listItemTexts?(list: readonly unknown[]): string[];
}

/**
 * LangGraph.js's serializer methods (`saver.serde.dumpsTyped(value)` → `[type, bytes]`), which
 * code written against `@langchain/langgraph-checkpoint` calls, e.g. to copy a checkpoint.
 */
export interface TypedSerializer {
  dumpsTyped(value: unknown): Promise<[string, Uint8Array]>;
  loadsTyped(type: string, data: Uint8Array | string): Promise<unknown>;
}

/** The format the default serializer writes. */
export const SERDE_FORMAT = 1;

/** Refuses a value written in a format newer than `serde` understands. */
export function assertReadableFormat(serde: Serializer, format: number): void {
  if (format > serde.format) {
    throw new KeelError(
      "CHECKPOINT_FORMAT",
      `A checkpoint value was written in serde format ${format}, but this Keel reads up to format ${serde.format}.`,
      { details: { format, supported: serde.format }, hint: "Upgrade Keel to read this thread." },
    );
  }
}

const TAG = "$keel";

/**
 * The default serializer: JSON text. Values JSON cannot carry (undefined, Date, BigInt, Map, Set,
 * Uint8Array, NaN/±Infinity) are written as `{"$keel": tag, "v": …}`, and so are LangChain's
 * serialisable objects (messages), which are read back as instances of their classes. Plain JSON data, the common
 * case, takes one `JSON.stringify` with no per-key callback.
 */
export const jsonSerde = {
  format: SERDE_FORMAT,
  dumps(value: unknown): string {
    // Primitives, most of a checkpoint's values, without JSON.stringify's cost per call.
    switch (typeof value) {
      case "number":
        if (Number.isFinite(value)) return jsonNumber(value);
        break;
      case "string":
        return jsonString(value);
      case "boolean":
        return value ? "true" : "false";
      case "object":
        if (value === null) return "null";
        break;
    }
    try {
      if (isPlainJson(value, 64, TAG)) return JSON.stringify(value) ?? "null";
      if (typeof value === "object" && value !== null) return containerText(value, 0);
      return JSON.stringify(encode(value));
    } catch (error) {
      throw notSerializable(error);
    }
  },
  loads(text: string): unknown {
    const parsed: unknown = JSON.parse(text);
    return text.includes(`"${TAG}"`) ? decode(parsed) : parsed;
  },
  async dumpsTyped(value: unknown): Promise<[string, Uint8Array]> {
    return ["json", new TextEncoder().encode(jsonSerde.dumps(value))];
  },
  async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
    if (type !== "json")
      throw new KeelError("CHECKPOINT_FORMAT", `Cannot read a value of type "${type}".`, {
        details: { type },
        hint: 'Keel\'s serializer reads values it wrote itself, of type "json".',
      });
    return jsonSerde.loads(typeof data === "string" ? data : new TextDecoder().decode(data));
  },
} as Serializer & TypedSerializer & { listItemTexts(list: readonly unknown[]): string[] };

// Not enumerable: a serializer made by spreading `jsonSerde` with its own `dumps`/`loads` (say,
// encrypting) must not inherit it, or a saver would write that serializer's appends without them.
Object.defineProperty(jsonSerde, "listItemTexts", {
  enumerable: false,
  value(list: readonly unknown[]): string[] {
    // The items as `containerText` writes them: joined, they are the text `dumps` writes for a
    // list that is not plain JSON (a message list), and one `loads` reads as the same list.
    try {
      const texts = new Array<string>(list.length);
      for (let index = 0; index < list.length; index++) texts[index] = itemText(list[index], 0);
      return texts;
    } catch (error) {
      throw notSerializable(error);
    }
  },
});

function notSerializable(error: unknown): KeelError {
  return new KeelError(
    "CHECKPOINT_NOT_SERIALIZABLE",
    `Cannot save a value in a checkpoint: ${(error as Error).message}`,
    {
      cause: error,
      hint: "Keep graph state to JSON data, Dates, Maps, Sets, BigInts and byte arrays.",
    },
  );
}

/** How deep `containerText` looks for messages before handing a value to `JSON.stringify`. */
const TEXT_DEPTH = 3;

/**
 * `JSON.stringify(encode(value))` for a list or a plain record, item by item, so that the messages
 * it holds (a message list, or a node's update `{ messages: [...] }` in a checkpoint's metadata)
 * reuse their remembered text (see message-text-cache.ts) instead of LangChain's `toJSON`.
 */
function containerText(value: object, depth: number): string {
  if (Array.isArray(value)) {
    let text = "[";
    for (let index = 0; index < value.length; index++) {
      if (index > 0) text += ",";
      text += itemText(value[index], depth);
    }
    return `${text}]`;
  }
  const proto = Object.getPrototypeOf(value);
  // A user's own "$keel" key (wrapped) and a literal's own toJSON (called) stay on
  // `encodeObject`'s path.
  if (
    (proto !== Object.prototype && proto !== null) ||
    Object.hasOwn(value, TAG) ||
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  )
    return JSON.stringify(encodeObject(value));
  let text = "{";
  for (const key of Object.keys(value)) {
    text += `${text.length === 1 ? "" : ","}${jsonString(key)}:${itemText((value as Record<string, unknown>)[key], depth)}`;
  }
  return `${text}}`;
}

function itemText(item: unknown, depth: number): string {
  if (typeof item !== "object" || item === null) return JSON.stringify(encode(item)) ?? "null";
  return (
    messageText(item, encodedText) ??
    (depth < TEXT_DEPTH ? containerText(item, depth + 1) : JSON.stringify(encode(item)))
  );
}

function encodedText(value: object): string {
  return JSON.stringify(encodeObject(value));
}

function encode(value: unknown): unknown {
  switch (typeof value) {
    case "undefined":
      return { [TAG]: "undefined" };
    case "bigint":
      return { [TAG]: "bigint", v: value.toString() };
    case "number":
      return Number.isFinite(value) ? value : { [TAG]: "number", v: String(value) };
    case "function":
    case "symbol":
      throw new TypeError(`a ${typeof value} cannot be serialised`);
    case "object":
      return value === null ? null : encodeObject(value);
    default:
      return value;
  }
}

function encodeObject(value: object): unknown {
  if (Array.isArray(value)) return value.map(encode);
  if (value instanceof Date) return { [TAG]: "date", v: value.toISOString() };
  if (value instanceof Map)
    return { [TAG]: "map", v: [...value].map(([k, v]) => [encode(k), encode(v)]) };
  if (value instanceof Set) return { [TAG]: "set", v: [...value].map(encode) };
  if (value instanceof Uint8Array)
    return { [TAG]: "bytes", v: Buffer.from(value).toString("base64") };
  // LangChain messages and documents come back as instances of their classes (see langchain-values).
  if (isLcSerializable(value)) return { [TAG]: "lc", v: encode(value.toJSON()) };
  if (isLcDocument(value)) return { [TAG]: "lcdoc", v: encode({ ...value }) };
  const withToJson = value as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === "function") return encode(withToJson.toJSON());
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = encode(item);
  // A user object that has a "$keel" key of its own is wrapped so it is never read as a tag.
  return TAG in out ? { [TAG]: "object", v: out } : out;
}

function decode(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(decode);
  const record = value as Record<string, unknown>;
  const tag = record[TAG];
  if (typeof tag !== "string") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(record)) out[key] = decode(item);
    return out;
  }
  const v = record.v;
  switch (tag) {
    case "undefined":
      return undefined;
    case "bigint":
      return BigInt(String(v));
    case "number":
      return Number(v);
    case "date":
      return new Date(String(v));
    case "map":
      return new Map((v as [unknown, unknown][]).map(([k, item]) => [decode(k), decode(item)]));
    case "set":
      return new Set((v as unknown[]).map(decode));
    case "bytes":
      return new Uint8Array(Buffer.from(String(v), "base64"));
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(v as Record<string, unknown>))
        out[key] = decode(item);
      return out;
    }
    case "lc":
      return reviveLc(decode(v));
    case "lcdoc":
      return reviveLcDocument(decode(v));
    default:
      throw new KeelError("CHECKPOINT_FORMAT", `Unknown value tag "${tag}" in a checkpoint.`, {
        hint: "The checkpoint was written by a newer Keel; upgrade to read it.",
      });
  }
}

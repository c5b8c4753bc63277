import { randomUUID } from "node:crypto";
import type * as LcMessages from "@langchain/core/messages";
import type { BaseMessage, BaseMessageLike } from "@langchain/core/messages";
import { InvalidUpdateError } from "../errors.js";
import { isMessageLike, lcMessages } from "./langchain-messages.js";

/** The id of a `RemoveMessage` that clears every message before it (LangGraph's constant). */
export const REMOVE_ALL_MESSAGES = "__remove_all__";

/** What a node may write to a messages key: one message-like value or a list of them. */
export type Messages = BaseMessageLike | BaseMessageLike[];

const CHUNK_TYPES = new Set(["human", "ai", "system", "tool", "function", "generic"]);

/** A message instance for a message-like value; a chunk becomes its whole-message class. */
function toMessage(value: BaseMessageLike): BaseMessage {
  const lc = lcMessages();
  const message = lc.coerceMessageLikeToMessage(value);
  if (!lc.BaseMessageChunk.isInstance(message)) return message;
  const type = message.getType();
  if (!CHUNK_TYPES.has(type)) return message;
  // A streamed chunk is stored as the message it amounts to (what a model's invoke returns).
  const fields: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(message))
    if (key !== "type" && key !== "tool_call_chunks" && !key.startsWith("lc_")) fields[key] = field;
  const classes: Record<string, new (fields: never) => BaseMessage> = {
    human: lc.HumanMessage,
    ai: lc.AIMessage,
    system: lc.SystemMessage,
    tool: lc.ToolMessage,
    function: lc.FunctionMessage,
    generic: lc.ChatMessage,
  };
  return new (classes[type] as new (fields: Record<string, unknown>) => BaseMessage)(fields);
}

/** A write as a list (as LangGraph.js: an array is a list of message-likes). */
function listOf(value: Messages): BaseMessageLike[] {
  return (Array.isArray(value) ? value : [value]) as BaseMessageLike[];
}

/**
 * Gives every message instance in a write to a messages key the id the reducer would give it
 * (in place, as the reducer does), before the write is saved: the saved write, the checkpoint's
 * list and its metadata then hold the same message text (one serialisation, no second copy in
 * the metadata), and a step replayed from its saved writes keeps the ids (as LangGraph.js's
 * `ensureDeltaMessageIds`). Message-likes that are not instances are left to the reducer.
 */
export function ensureWrittenMessageIds(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) if (isMessageLike(item)) ensureId(item);
  } else if (isMessageLike(value)) ensureId(value);
}

function ensureId(message: BaseMessage): void {
  if (message.id === undefined || message.id === null) {
    message.id = randomUUID();
    // lc_kwargs is what toJSON (and so a checkpoint) writes.
    message.lc_kwargs.id = message.id;
  }
}

/**
 * The reducer of a messages key, with LangGraph's `addMessages` semantics: message-likes
 * (`{ role, content }`, `["user", "hi"]`, strings) become message instances, every message gets
 * an id, a message whose id is already in the list replaces it, a `RemoveMessage` removes the
 * message with its id (an unknown id is an `INVALID_UPDATE`), and a `RemoveMessage` with id
 * `REMOVE_ALL_MESSAGES` drops everything before it. Loads `@langchain/core` on first use.
 *
 * @example
 * const State = Annotation.Root({
 *   messages: Annotation<BaseMessage[], Messages>({ reducer: messagesStateReducer, default: () => [] }),
 * });
 */
export function messagesStateReducer(left: Messages, right: Messages): BaseMessage[] {
  const lc = lcMessages();
  const leftMessages = listOf(left);
  // The list kept, as it is, while its items are messages already (the reducer's own output,
  // at every step of a run): each item is checked, not coerced again.
  let merged = leftMessages as BaseMessage[];
  for (let index = 0; index < leftMessages.length; index++) {
    const item = leftMessages[index] as BaseMessageLike;
    const message = storedMessage(lc, item) ?? toMessage(item);
    // The first converted item starts a copy of the items before it.
    if (message !== item && merged === leftMessages)
      merged = leftMessages.slice(0, index) as BaseMessage[];
    if (merged !== leftMessages) merged.push(message);
  }
  const rightMessages = listOf(right).map(toMessage);
  for (let index = 0; index < merged.length; index++) ensureId(merged[index] as BaseMessage);
  let clearAt = -1;
  for (let index = 0; index < rightMessages.length; index++) {
    const message = rightMessages[index] as BaseMessage;
    ensureId(message);
    if (lc.RemoveMessage.isInstance(message) && message.id === REMOVE_ALL_MESSAGES) clearAt = index;
  }
  if (clearAt >= 0) return rightMessages.slice(clearAt + 1);
  if (merged === leftMessages) merged = leftMessages.slice() as BaseMessage[];
  // Where each id is: looked up by scanning for a write of a few messages (a step's usual
  // update), which reads the ids the loop above read; a map of every id for larger writes.
  const at = rightMessages.length > SCAN_LIMIT ? indexById(merged) : undefined;
  let removed: Set<string> | undefined;
  for (const message of rightMessages) {
    const id = message.id as string;
    const index = at === undefined ? lastIndexOfId(merged, id) : at.get(id);
    const removal = lc.RemoveMessage.isInstance(message);
    if (index === undefined) {
      if (removal) {
        throw new InvalidUpdateError(
          `A RemoveMessage names message id "${id}", which is not in the list.`,
          { details: { id }, hint: "Remove only messages that are in the state (by their id)." },
        );
      }
      at?.set(id, merged.length);
      merged.push(message);
    } else if (removal) {
      removed ??= new Set();
      removed.add(id);
    } else {
      removed?.delete(id);
      merged[index] = message;
    }
  }
  return removed === undefined || removed.size === 0
    ? merged
    : merged.filter((m) => !removed.has(m.id as string));
}

/** Messages written at once beyond which the reducer maps every id instead of scanning. */
const SCAN_LIMIT = 4;

/** Id → index of its last message (as a map filled in list order keeps it). */
function indexById(messages: readonly BaseMessage[]): Map<string, number> {
  const at = new Map<string, number>();
  for (let index = 0; index < messages.length; index++)
    at.set((messages[index] as BaseMessage).id as string, index);
  return at;
}

/** The index of the last message with `id`, or undefined. */
function lastIndexOfId(messages: readonly BaseMessage[], id: string): number | undefined {
  for (let index = messages.length - 1; index >= 0; index--)
    if ((messages[index] as BaseMessage).id === id) return index;
  return undefined;
}

/** Per class (prototype): whether it is a chunk class (found by walking its chain once). */
const chunkClasses = new WeakMap<object, boolean>();

/**
 * `item` itself when `toMessage` would give it back unchanged (a message instance that is not a
 * chunk), else undefined: `BaseMessage.isInstance` once, the chunk check remembered per class.
 */
function storedMessage(lc: typeof LcMessages, item: BaseMessageLike): BaseMessage | undefined {
  if (!lc.BaseMessage.isInstance(item)) return undefined;
  const proto = Object.getPrototypeOf(item) as object | null;
  if (proto === null) return undefined;
  let chunk = chunkClasses.get(proto);
  if (chunk === undefined) {
    chunk = lc.BaseMessageChunk.isInstance(item);
    chunkClasses.set(proto, chunk);
  }
  return chunk ? undefined : item;
}

/**
 * The batch reducer of a messages key stored as a `DeltaChannel` (LangGraph.js's
 * `messagesDeltaReducer`): the writes of a batch are flattened (an array write is a list, any
 * other value one message) and applied in order. A message with a known id replaces it, a
 * `RemoveMessage` drops its id (an unknown id is ignored), `REMOVE_ALL_MESSAGES` drops everything
 * before it, and a message without an id is appended as it is. Applying two batches one after the
 * other gives what their concatenation gives, which a `DeltaChannel` requires.
 *
 * @example
 * const State = Annotation.Root({ messages: new DeltaChannel(messagesDeltaReducer) });
 */
export function messagesDeltaReducer(state: BaseMessage[], writes: Messages[]): BaseMessage[] {
  const lc = lcMessages();
  const typed =
    state.length > 0 && lc.BaseMessage.isInstance(state[0])
      ? state
      : (state as BaseMessageLike[]).map(toMessage);
  const result: (BaseMessage | null)[] = typed.slice();
  const at = new Map<string, number>();
  typed.forEach((message, index) => {
    if (message.id != null) at.set(message.id, index);
  });
  for (const write of writes) {
    for (const like of listOf(write)) {
      const message = toMessage(like);
      const id = message.id;
      const removal = lc.RemoveMessage.isInstance(message);
      if (removal && id === REMOVE_ALL_MESSAGES) {
        result.length = 0;
        at.clear();
      } else if (id == null) {
        result.push(message);
      } else if (removal) {
        const index = at.get(id);
        if (index !== undefined) {
          result[index] = null;
          at.delete(id);
        }
      } else {
        const index = at.get(id);
        if (index !== undefined) result[index] = message;
        else {
          at.set(id, result.length);
          result.push(message);
        }
      }
    }
  }
  return result.filter((message): message is BaseMessage => message !== null);
}

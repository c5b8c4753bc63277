import type { LiveRun } from "./live-run.js";
import { messagesOfUpdate } from "./stream-modes.js";
import { toWire } from "./wire.js";

interface Concatenable {
  concat(other: unknown): unknown;
}

const CHUNK_TYPES: Record<string, string> = {
  ai: "AIMessageChunk",
  human: "HumanMessageChunk",
  system: "SystemMessageChunk",
  tool: "ToolMessageChunk",
};

function isChunk(message: unknown): message is Concatenable {
  return typeof (message as Partial<Concatenable> | null)?.concat === "function";
}

/**
 * A run's message events, as LangGraph's server sends them: `messages` (`messages-tuple`: each
 * token chunk or whole message with its metadata), and for the `messages` mode
 * `messages/metadata` once per message, `messages/partial` (the message so far) per token and
 * `messages/complete` when it is whole. Tokens come from the engine's `messages` mode (a
 * LangChain chat model streaming inside a node); messages a node writes without streaming come
 * from its update. Each message is sent once, whichever source sees it first.
 */
export class MessageEvents {
  private readonly tupleSent = new Set<string>();
  private readonly metadataSent = new Set<string>();
  private readonly completed = new Set<string>();
  private readonly partial = new Map<string, unknown>();

  constructor(
    private readonly live: LiveRun,
    private readonly meta: Record<string, unknown>,
  ) {}

  /** A `[message or chunk, metadata]` of the engine's `messages` mode. */
  fromEngine(item: unknown): void {
    const [message, metadata] = item as [unknown, Record<string, unknown>];
    const wire = toWire(message) as { id?: string; type?: string };
    const id = wire.id;
    const chunk = isChunk(message);
    if (!chunk && id !== undefined && this.tupleSent.has(id)) return;
    // A token is sent as its chunk class, as LangGraph's server sends it (`AIMessageChunk`).
    if (chunk && typeof wire.type === "string") wire.type = CHUNK_TYPES[wire.type] ?? wire.type;
    const md = { ...this.meta, ...metadata };
    this.live.emit("messages", [wire, md]);
    if (id === undefined) return;
    this.tupleSent.add(id);
    this.sendMetadata(id, md);
    if (chunk) {
      const before = this.partial.get(id) as Concatenable | undefined;
      const sum = before ? before.concat(message) : message;
      this.partial.set(id, sum);
      this.live.emit("messages/partial", [toWire(sum)]);
    } else this.complete(id, wire);
  }

  /** The messages of a node's update (plain dicts or LangChain messages). */
  fromUpdate(update: Record<string, unknown>): void {
    for (const { message, metadata } of messagesOfUpdate(update, this.meta)) {
      const wire = toWire(message) as { id?: string };
      const id = wire.id;
      if (id !== undefined && this.tupleSent.has(id)) {
        // Streamed token by token: now it is whole.
        this.complete(id, wire);
        continue;
      }
      this.live.emit("messages", [wire, metadata]);
      if (id === undefined) {
        this.live.emit("messages/complete", [wire]);
        continue;
      }
      this.tupleSent.add(id);
      this.sendMetadata(id, metadata);
      this.complete(id, wire);
    }
  }

  private sendMetadata(id: string, metadata: Record<string, unknown>): void {
    if (this.metadataSent.has(id)) return;
    this.metadataSent.add(id);
    this.live.emit("messages/metadata", { [id]: { metadata } });
  }

  private complete(id: string, wire: unknown): void {
    if (this.completed.has(id)) return;
    this.completed.add(id);
    this.partial.delete(id);
    this.live.emit("messages/complete", [wire]);
  }
}

import { loadOptionalPeer } from "../../core/index.js";

/** The stream modes the server implements (LangGraph's names). */
export const STREAM_MODES = [
  "values",
  "updates",
  "messages",
  "messages-tuple",
  "custom",
  "debug",
  "tasks",
  "checkpoints",
  "events",
] as const;
export type ApiStreamMode = (typeof STREAM_MODES)[number];

/** The SSE event names each mode produces. */
const EVENTS_OF: Record<ApiStreamMode, readonly string[]> = {
  values: ["values"],
  updates: ["updates"],
  messages: ["messages/metadata", "messages/partial", "messages/complete"],
  "messages-tuple": ["messages"],
  custom: ["custom"],
  debug: ["debug"],
  tasks: ["tasks"],
  checkpoints: ["checkpoints"],
  events: ["events"],
};

/** Events every stream carries whatever its modes. */
const ALWAYS = new Set(["metadata", "error", "end"]);

/** Which SSE events a client asking for `modes` receives. */
export function eventFilter(modes: readonly string[]): (event: string) => boolean {
  const wanted = new Set<string>(ALWAYS);
  for (const mode of modes)
    for (const event of EVENTS_OF[mode as ApiStreamMode] ?? []) wanted.add(event);
  // A subgraph's event is named `<event>|<namespace>`: it goes where its event goes.
  return (event) => {
    const bar = event.indexOf("|");
    return wanted.has(bar < 0 ? event : event.slice(0, bar));
  };
}

type EngineMode = "values" | "updates" | "debug" | "messages";

/**
 * The engine modes a run must stream to serve `modes`: values always (the run's result), updates
 * always (each is a `run.step` on the server's event channel), debug for `debug`, `tasks`,
 * `checkpoints` and `events` (which are made of its task and checkpoint events), and the
 * engine's `messages` (tokens as a LangChain chat model streams them) for both message modes and
 * `events` when LangChain is installed.
 */
export function engineModes(modes: readonly string[]): EngineMode[] {
  const engine = new Set<EngineMode>(["values", "updates"]);
  for (const mode of modes) {
    if (mode === "debug" || mode === "tasks" || mode === "checkpoints" || mode === "events")
      engine.add("debug");
    if (
      (mode === "messages" || mode === "messages-tuple" || mode === "events") &&
      langChainInstalled()
    )
      engine.add("messages");
  }
  return [...engine];
}

let langChain: boolean | undefined;
function langChainInstalled(): boolean {
  if (langChain === undefined) {
    try {
      loadOptionalPeer("@langchain/core/messages");
      langChain = true;
    } catch {
      langChain = false;
    }
  }
  return langChain;
}

/** The `tasks` and `checkpoints` events a `debug` event stands for (LangGraph's payloads). */
export function debugDerived(
  chunk: Record<string, unknown>,
): ["tasks" | "checkpoints", unknown] | null {
  if (chunk.type === "task" || chunk.type === "task_result") return ["tasks", chunk.payload];
  if (chunk.type === "checkpoint") return ["checkpoints", chunk.payload];
  return null;
}

/**
 * The messages a node's update carries (`messages`: one message or a list), each with the
 * metadata LangGraph's `messages` mode sends. Keel's engine streams whole messages, not tokens:
 * a model node's message arrives complete when the node finishes.
 */
export function messagesOfUpdate(
  update: Record<string, unknown>,
  meta: Record<string, unknown>,
): Array<{ message: unknown; metadata: Record<string, unknown> }> {
  const out: Array<{ message: unknown; metadata: Record<string, unknown> }> = [];
  for (const [node, written] of Object.entries(update)) {
    if (node === "__interrupt__" || typeof written !== "object" || written === null) continue;
    const messages = (written as { messages?: unknown }).messages;
    if (messages === undefined) continue;
    for (const message of Array.isArray(messages) ? messages : [messages]) {
      out.push({ message, metadata: { ...meta, langgraph_node: node } });
    }
  }
  return out;
}

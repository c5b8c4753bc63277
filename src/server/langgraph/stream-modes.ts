/** The stream modes the server implements (LangGraph's names). */
export const STREAM_MODES = [
  "values",
  "updates",
  "messages",
  "messages-tuple",
  "custom",
  "debug",
] as const;
export type ApiStreamMode = (typeof STREAM_MODES)[number];

/** The SSE event names each mode produces. */
const EVENTS_OF: Record<ApiStreamMode, readonly string[]> = {
  values: ["values"],
  updates: ["updates"],
  messages: ["messages/metadata", "messages/complete"],
  "messages-tuple": ["messages"],
  custom: ["custom"],
  debug: ["debug"],
};

/** Events every stream carries whatever its modes. */
const ALWAYS = new Set(["metadata", "error", "end"]);

/** Which SSE events a client asking for `modes` receives. */
export function eventFilter(modes: readonly string[]): (event: string) => boolean {
  const wanted = new Set<string>(ALWAYS);
  for (const mode of modes)
    for (const event of EVENTS_OF[mode as ApiStreamMode] ?? []) wanted.add(event);
  return (event) => wanted.has(event);
}

/**
 * The engine modes a run must stream to serve `modes`: values always (the run's result), and
 * updates always (each is a `run.step` on the server's event channel).
 */
export function engineModes(modes: readonly string[]): Array<"values" | "updates" | "debug"> {
  const engine = new Set<"values" | "updates" | "debug">(["values", "updates"]);
  for (const mode of modes) if (mode === "debug") engine.add("debug");
  return [...engine];
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

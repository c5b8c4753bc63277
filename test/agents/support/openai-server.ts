/**
 * A loopback HTTP server (127.0.0.1, a free port) that speaks OpenAI's chat-completions protocol
 * for the agent tests: `POST /v1/chat/completions`, plain JSON or streamed SSE chunks
 * (`stream: true`), tool calls in both, error statuses, and 429 with `retry-after`. What it
 * answers comes from `reply(request, n)`, decided from the request itself so that a run resumed
 * in another process hears the same answers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatRequest {
  model: string;
  messages: Array<{
    role: string;
    content: unknown;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  stream?: boolean;
  tools?: Array<{ type: string; function: { name: string; parameters?: unknown } }>;
  temperature?: number;
  response_format?: unknown;
  tool_choice?: unknown;
}

/** One answer: text, tool calls (arguments as raw text, so tests can send broken JSON), or an error. */
export interface Reply {
  content?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  /** Answer with this HTTP status and an OpenAI error body instead. */
  status?: number;
  /** With `status: 429`: the `retry-after` header, in seconds (fractions allowed). */
  retryAfter?: string;
  message?: string;
}

export interface OpenAIServer {
  /** The base URL clients take (`…/v1`). */
  baseURL: string;
  /** Every request received, parsed, with its authorization header. */
  requests: Array<{ body: ChatRequest; authorization: string | undefined; at: number }>;
  close(): Promise<void>;
}

export async function startOpenAIServer(
  reply: (request: ChatRequest, n: number) => Reply,
): Promise<OpenAIServer> {
  const requests: OpenAIServer["requests"] = [];
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error), type: "server_error" } }));
    });
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.url}`, type: "not_found" } }));
      return;
    }
    let text = "";
    for await (const chunk of req) text += String(chunk);
    const body = JSON.parse(text) as ChatRequest;
    requests.push({ body, authorization: req.headers.authorization, at: performance.now() });
    const answer = reply(body, requests.length);
    if (answer.status !== undefined && answer.status !== 200) {
      res.writeHead(answer.status, {
        "content-type": "application/json",
        ...(answer.retryAfter !== undefined ? { "retry-after": answer.retryAfter } : {}),
      });
      res.end(
        JSON.stringify({
          error: {
            message: answer.message ?? `status ${answer.status}`,
            type: answer.status === 429 ? "rate_limit_exceeded" : "server_error",
            code: answer.status === 429 ? "rate_limit_exceeded" : null,
          },
        }),
      );
      return;
    }
    const id = `chatcmpl-${requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const toolCalls = (answer.toolCalls ?? []).map((call, index) => ({
      index,
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
    const finish = toolCalls.length > 0 ? "tool_calls" : "stop";
    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model: body.model,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: answer.content ?? (toolCalls.length > 0 ? null : ""),
                ...(toolCalls.length > 0 ? { tool_calls: toolCalls.map(withoutIndex) } : {}),
              },
              finish_reason: finish,
            },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      res.write(
        `data: ${JSON.stringify({
          id,
          object: "chat.completion.chunk",
          created,
          model: body.model,
          choices: [{ index: 0, delta, finish_reason: finishReason }],
        })}\n\n`,
      );
    send({ role: "assistant", content: "" });
    // Word by word, as a model streams tokens.
    for (const word of (answer.content ?? "").split(/(?<= )/).filter(Boolean))
      send({ content: word });
    for (const call of toolCalls) {
      // The name and id first, then the arguments in two pieces, as providers split them.
      const half = Math.ceil(call.function.arguments.length / 2);
      send({
        tool_calls: [
          {
            index: call.index,
            id: call.id,
            type: "function",
            function: { name: call.function.name, arguments: "" },
          },
        ],
      });
      send({
        tool_calls: [
          { index: call.index, function: { arguments: call.function.arguments.slice(0, half) } },
        ],
      });
      send({
        tool_calls: [
          { index: call.index, function: { arguments: call.function.arguments.slice(half) } },
        ],
      });
    }
    send({}, finish);
    res.end("data: [DONE]\n\n");
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function withoutIndex<T extends { index: number }>(call: T): Omit<T, "index"> {
  const { index: _index, ...rest } = call;
  return rest;
}

/** How many tool answers the conversation has had since the last user message. */
export function toolAnswers(request: ChatRequest): number {
  let count = 0;
  for (let i = request.messages.length - 1; i >= 0; i -= 1) {
    const role = request.messages[i]?.role;
    if (role === "user") break;
    if (role === "tool") count += 1;
  }
  return count;
}

import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import type { Hono } from "hono";
import { type WebSocket, WebSocketServer } from "ws";
import { KeelError } from "../core/index.js";
import type { ServerContext } from "./context.js";
import type { RouteTable } from "./route.js";

/** What the `/ws` route is handed when it is reached by a WebSocket handshake. */
interface UpgradeEnv {
  wsUpgrade?: () => void;
}

/** A subscriber whose socket holds more than this many unsent bytes is dropped. */
const MAX_BUFFERED = 1024 * 1024;
const PING_MS = 15_000;

/**
 * Declares `GET /ws`, the event channel over WebSocket (what the skill-map spec's job-events.md
 * names: the server's broadcaster at `/ws`, one JSON event per text frame). The handshake goes
 * through the route table like any request — token or session, the `read` capability, refusals
 * audited — and, for a browser, an `Origin` of this server (a page of another site cannot open
 * it with the operator's cookie). Reached without a handshake it answers 400.
 */
export function webSocketRoute(table: RouteTable): void {
  table.add(
    {
      method: "get",
      path: "/ws",
      capability: "read",
      summary:
        'The event channel over WebSocket: one JSON event per text frame ({type, timestamp, runId, jobId, data, at}); send {"subscribe": ["job.", "scan."]} to keep only those type prefixes.',
      tag: "keel",
    },
    (c) => {
      const upgrade = (c.env as UpgradeEnv | undefined)?.wsUpgrade;
      if (!upgrade) {
        throw new KeelError("INVALID_ARGUMENT", "/ws is a WebSocket endpoint.", {
          hint: "Connect with a WebSocket client, or read the same events over SSE at /api/events.",
        });
      }
      const origin = c.req.header("origin");
      const host = c.req.header("host");
      if (origin !== undefined && (host === undefined || hostOf(origin) !== host)) {
        throw new KeelError("CSRF_REJECTED", "A WebSocket from another origin is refused.", {
          details: { origin },
          hint: "Open the channel from a page of this server.",
        });
      }
      upgrade();
      return c.body(null, 204);
    },
  );
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/**
 * Serves WebSocket handshakes on `server`: each is first answered by the app (authorization as
 * above), then handed to `ws`. Returns a function that closes every socket (1001) for shutdown.
 */
export function attachWebSocket(
  server: Server,
  app: Hono,
  ctx: ServerContext,
): () => Promise<void> {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void handshake(req, socket, head);
  });

  async function handshake(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on("error", () => socket.destroy());
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string") headers.set(name, value);
      else if (Array.isArray(value)) headers.set(name, value.join(", "));
    }
    let accepted = false;
    let response: Response;
    try {
      const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
        headers,
      });
      const env: UpgradeEnv = {
        wsUpgrade: () => {
          accepted = true;
        },
      };
      response = await app.fetch(request, env);
    } catch {
      response = new Response(null, { status: 400 });
    }
    if (!accepted) {
      const body = Buffer.from(await response.text());
      socket.end(
        `HTTP/1.1 ${response.status} ${response.statusText || "Refused"}\r\n` +
          `Content-Type: ${response.headers.get("content-type") ?? "text/plain"}\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.toString()}`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => subscribe(ws, ctx));
  }

  return async () => {
    for (const client of wss.clients) client.close(1001, "server stopping");
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    for (const client of wss.clients) client.terminate();
  };
}

function subscribe(ws: WebSocket, ctx: ServerContext): void {
  let prefixes: string[] | null = null;
  let alive = true;
  const stop = ctx.bus.subscribe((event) => {
    if (prefixes && !prefixes.some((p) => event.type.startsWith(p))) return;
    // A client that does not read is dropped rather than buffered without bound.
    if (ws.bufferedAmount > MAX_BUFFERED) {
      ws.terminate();
      return;
    }
    ws.send(JSON.stringify(event));
  });
  const ping = setInterval(() => {
    if (!alive) {
      ws.terminate();
      return;
    }
    alive = false;
    ws.ping();
  }, PING_MS);
  ping.unref();
  ws.on("pong", () => {
    alive = true;
  });
  ws.on("message", (raw, binary) => {
    const request = binary ? null : parseSubscribe(raw.toString());
    if (!request) {
      ws.send(
        JSON.stringify({
          type: "error",
          data: {
            code: "INVALID_ARGUMENT",
            message: 'Send {"subscribe": ["<type prefix>", …]} (an empty list: every event).',
          },
        }),
      );
      return;
    }
    prefixes = request.length === 0 ? null : request;
    ws.send(JSON.stringify({ type: "subscribed", data: { prefixes: request } }));
  });
  const end = () => {
    clearInterval(ping);
    stop();
  };
  ws.on("close", end);
  ws.on("error", end);
  ws.send(JSON.stringify({ type: "ready", data: {} }));
}

function parseSubscribe(text: string): string[] | null {
  try {
    const value = JSON.parse(text) as { subscribe?: unknown };
    const list = value.subscribe;
    if (!Array.isArray(list) || list.length > 50) return null;
    if (!list.every((p) => typeof p === "string" && p.length <= 100)) return null;
    return list as string[];
  } catch {
    return null;
  }
}

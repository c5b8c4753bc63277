import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Store } from "../store/index.js";
import { createMemoryMcpServer, type MemoryMcpOptions } from "./tools.js";

/** Options of the Streamable HTTP transport. */
export interface McpHttpOptions extends MemoryMcpOptions {
  /** Default 127.0.0.1: the server is not reachable from other machines unless asked. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** When set, every request needs `X-API-Key: <key>` (or `Authorization: Bearer <key>`). */
  apiKey?: string | null;
}

function keyMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString("utf8");
  return body === "" ? undefined : JSON.parse(body);
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/**
 * Serves the memory's MCP tools over Streamable HTTP at `/mcp` (stateless: each request gets
 * its own server instance over the shared store). Resolves once listening.
 *
 * @example
 * const { url, close } = await serveMcpHttp(store, { port: 0, apiKey: process.env.KEEL_MCP_API_KEY });
 */
export async function serveMcpHttp(
  store: Store,
  options: McpHttpOptions = {},
): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const host = options.host ?? "127.0.0.1";
  const http = createServer(async (req, res) => {
    try {
      if (!req.url?.startsWith("/mcp"))
        return reply(res, 404, "Not found: the MCP endpoint is /mcp.");
      if (options.apiKey) {
        const header = req.headers["x-api-key"];
        const bearer = req.headers.authorization?.replace(/^Bearer\s+/i, "");
        if (!keyMatches(typeof header === "string" ? header : bearer, options.apiKey)) {
          return reply(res, 401, "Unauthorized: send the API key in the X-API-Key header.");
        }
      }
      if (req.method !== "POST")
        return reply(res, 405, "Method not allowed: this stateless server takes POST only.");
      let body: unknown;
      try {
        body = await readBody(req);
      } catch {
        return reply(res, 400, "The request body is not JSON.");
      }
      const server = createMemoryMcpServer(store, options);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) reply(res, 500, String((error as Error).message));
    }
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, () => resolve());
  });
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    url: `http://${host}:${port}/mcp`,
    server: http,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

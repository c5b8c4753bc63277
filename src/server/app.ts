import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { KeelError } from "../core/index.js";
import type { ServerContext } from "./context.js";
import { dashboardRoutes } from "./dashboard/routes.js";
import { errorResponse, routeNotFound } from "./errors.js";
import { openApiDocument } from "./openapi.js";
import { RouteTable } from "./route.js";
import { assistantRoutes } from "./routes/assistants.js";
import { catalogRoutes } from "./routes/catalog-api.js";
import { healthRoutes } from "./routes/health.js";
import { jobRoutes } from "./routes/jobs-api.js";
import { keelRoutes } from "./routes/keel-api.js";
import { memoryRoutes } from "./routes/memory-api.js";
import { runRoutes } from "./routes/runs.js";
import { threadRoutes } from "./routes/threads.js";
import { webSocketRoute } from "./ws.js";

/** Options of the HTTP app. */
export interface AppOptions {
  /** Largest request body in bytes (default 1 MiB); larger ones get 413. */
  maxBodyBytes?: number;
}

/**
 * The server's Hono app: the LangGraph-compatible API, Keel's own API under `/api`, the
 * dashboard, the probes and `/openapi.json`. Testable without sockets (`app.request(…)`).
 *
 * @example
 * const { app } = createApp(ctx);
 * const res = await app.request("/healthz");
 */
export function createApp(
  ctx: ServerContext,
  options: AppOptions = {},
): { app: Hono; table: RouteTable } {
  const app = new Hono();
  const maxSize = options.maxBodyBytes ?? 1024 * 1024;
  app.use(async (c, next) => {
    // Each request is logged at debug; below that level nothing is built for it.
    if (!ctx.log.isLevelEnabled("debug")) return next();
    const started = performance.now();
    await next();
    ctx.log.debug(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
      },
      "request",
    );
  });
  const tooLarge = () => {
    throw new KeelError("PAYLOAD_TOO_LARGE", `The request body is larger than ${maxSize} bytes.`, {
      details: { maxBytes: maxSize },
      hint: "Send less, or start keel serve with a larger --max-body.",
    });
  };
  const streamedLimit = bodyLimit({ maxSize, onError: tooLarge });
  app.use(async (c, next) => {
    // The headers every answer carries, set before the handler so that the answer is built
    // with them: set after, each one rebuilds the finished Response (and @hono/node-server's
    // lightweight Response becomes a real one). The dashboard and API are never framed by
    // another site, and sniffing is off.
    c.header("X-Frame-Options", "DENY");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    // A body with a Content-Length is judged by it and read later without a copy (Hono's
    // bodyLimit would turn the request into a full web Request first); a chunked one is counted
    // as it streams.
    const length = c.req.header("content-length");
    if (length !== undefined && c.req.header("transfer-encoding") === undefined) {
      if (Number.parseInt(length, 10) > maxSize) tooLarge();
      return next();
    }
    return streamedLimit(c, next);
  });
  const table = new RouteTable(app, (c, def) => ctx.authorizer.authorize(c, def));
  healthRoutes(table, ctx);
  assistantRoutes(table, ctx);
  threadRoutes(table, ctx);
  runRoutes(table, ctx);
  keelRoutes(table, ctx);
  catalogRoutes(table, ctx);
  jobRoutes(table, ctx);
  memoryRoutes(table, ctx);
  webSocketRoute(table);
  dashboardRoutes(app, table, ctx);
  const document = () => openApiDocument(table.routes);
  table.add(
    {
      method: "get",
      path: "/openapi.json",
      capability: "public",
      summary: "This API's OpenAPI 3.1 document.",
      tag: "health",
    },
    (c) => c.json(document()),
  );
  app.notFound((c) => errorResponse(c, routeNotFound(c.req.method, c.req.path)));
  app.onError((error, c) => {
    const status = (error as { code?: string }).code;
    if (status === undefined || status === "INTERNAL")
      ctx.log.error({ err: error, path: c.req.path }, "request failed");
    return errorResponse(c, error);
  });
  return { app, table };
}

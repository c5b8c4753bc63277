import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import pino, { type Logger } from "pino";
import { type DurableSaver, PostgresSaver, RunStore, SqliteSaver } from "../checkpoint/index.js";
import { KeelError, newId } from "../core/index.js";
import { AuditWriter } from "../runtime/index.js";
import type { Store } from "../store/index.js";
import { type AppOptions, createApp } from "./app.js";
import { Authorizer } from "./auth/authorizer.js";
import { TokenStore } from "./auth/token-store.js";
import type { ServerContext } from "./context.js";
import { EventBus } from "./events.js";
import { ApiRecords } from "./langgraph/api-records.js";
import { type Assistant, assistantsFrom, loadAssistants } from "./langgraph/assistants.js";
import { RunManager } from "./langgraph/run-manager.js";
import type { RouteDef } from "./route.js";
import { ChangeWatcher } from "./watcher.js";
import { attachWebSocket } from "./ws.js";

/** The port `keel serve` listens on unless told otherwise. */
export const DEFAULT_PORT = 4280;
/** The address it binds unless `--host` says otherwise: loopback only. */
export const DEFAULT_HOST = "127.0.0.1";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Options of `startServer`. */
export interface ServeOptions extends AppOptions {
  store: Store;
  /** A `keel.json` / `langgraph.json` naming the graphs; or `graphs` given in code. */
  configPath?: string;
  graphs?: Parameters<typeof assistantsFrom>[0];
  port?: number;
  /**
   * The address to bind. Anything but loopback must be asked for explicitly (`hostExplicit`,
   * what `--host` sets): SERVER_BIND_REFUSED otherwise.
   */
  host?: string;
  hostExplicit?: boolean;
  logger?: Logger;
  /** How long shutdown waits for runs in flight before leaving them to the next start (default 10 s). */
  shutdownGraceMs?: number;
  /** Slow-client limits: whole request (default 30 s) and headers (default 10 s). */
  requestTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** How often the database is looked at for changes made by other processes (default 1 s). */
  watchIntervalMs?: number;
}

/** A running server. */
export interface RunningServer {
  url: string;
  port: number;
  host: string;
  /** The admin secret valid while this process lives; the dashboard's login link carries it. */
  launchKey: string;
  ctx: ServerContext;
  /** Runs taken up at start (left pending or running by a previous process). */
  recovered: string[];
  /** The routes served, as declared (what /openapi.json describes). */
  routes: readonly RouteDef[];
  close(): Promise<void>;
}

/**
 * Starts `keel serve`: the app on @hono/node-server, bound to loopback unless told otherwise,
 * with the runs a previous process left unfinished taken up, and a graceful `close` (stop
 * accepting, let runs in flight finish up to the grace period, close the store's users).
 *
 * @example
 * const server = await startServer({ store, configPath: "keel.json" });
 * console.log(server.url); // http://127.0.0.1:4280
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const host = options.host ?? DEFAULT_HOST;
  if (!LOOPBACK.has(host) && !options.hostExplicit) {
    throw new KeelError("SERVER_BIND_REFUSED", `Refusing to bind ${host} without --host.`, {
      hint: "keel serve binds 127.0.0.1; pass --host to listen on another address.",
    });
  }
  const ctx = await createContext(options);
  const { app, table } = createApp(ctx, options);
  let ready = false;
  ctx.ready = () => ready;
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const server = serve({
    fetch: app.fetch,
    port: options.port ?? DEFAULT_PORT,
    hostname: host,
    // Slow clients: a request must send its headers within headersTimeout and its whole body
    // within requestTimeout (answered 408 and closed); Node checks every connectionsCheckingInterval.
    serverOptions: {
      headersTimeout,
      requestTimeout,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 2))),
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", () => resolve());
    server.once("error", (error) =>
      reject(
        new KeelError(
          "SERVER_BIND_REFUSED",
          `Cannot listen on ${host}:${options.port ?? DEFAULT_PORT}: ${error.message}`,
          { cause: error, hint: "Pick another --port, or stop what holds this one." },
        ),
      ),
    );
  });
  const httpServer = server as unknown as import("node:http").Server;
  const closeSockets = attachWebSocket(httpServer, app, ctx);
  // SSE streams stay open: no idle timeout on a socket that is answering a request.
  httpServer.timeout = 0;
  // Keep-alive sockets outlive a client's pause between requests (Node's 5 s lets a client
  // reuse a socket the server is closing: ECONNRESET under load).
  httpServer.keepAliveTimeout = 65_000;
  const address = server.address() as AddressInfo;
  const recovered = await ctx.manager.recover();
  await ctx.watcher.start();
  ready = true;
  const url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
  ctx.log.info(
    { url, assistants: [...ctx.assistants.keys()], recovered: recovered.length },
    "keel serve listening",
  );
  let closing: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    host: address.address,
    launchKey: ctx.authorizer.launchKey,
    ctx,
    recovered,
    routes: table.routes,
    close: () => {
      closing ??= (async () => {
        ready = false;
        const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
        await ctx.manager.close(options.shutdownGraceMs ?? 10_000);
        await ctx.watcher.stop();
        // Streams still open (SSE followers, WebSockets) are ended so close() can finish.
        await closeSockets();
        httpServer.closeAllConnections();
        await stopped;
        await ctx.saver.flush().catch(() => {});
        ctx.log.info({}, "keel serve stopped");
      })();
      return closing;
    },
  };
}

async function createContext(options: ServeOptions): Promise<ServerContext> {
  const { store } = options;
  const log =
    options.logger ?? pino({ name: "keel-serve", level: process.env.KEEL_LOG_LEVEL ?? "info" });
  const saver: DurableSaver =
    store.dialect === "sqlite" ? SqliteSaver.fromStore(store) : PostgresSaver.fromStore(store);
  const runs = new RunStore(saver, { cancelPollMs: 250 });
  const audit = new AuditWriter(store);
  const tokens = new TokenStore(store, saver.sql);
  const records = new ApiRecords(store, saver.sql);
  const bus = new EventBus();
  // The manager (below) publishes the events of the runs it executes; the watcher all others.
  const watcher = new ChangeWatcher(store, bus, options.watchIntervalMs ?? 1000, (runId) =>
    manager.executedHere(runId),
  );
  const assistants: Map<string, Assistant> = new Map();
  if (options.configPath)
    for (const [k, v] of await loadAssistants(options.configPath, { checkpointer: saver, store }))
      assistants.set(k, v);
  if (options.graphs)
    for (const [k, v] of assistantsFrom(options.graphs, saver)) assistants.set(k, v);
  const authorizer = new Authorizer(tokens, audit, newId());
  const manager = new RunManager({ saver, runs, records, assistants, bus, log });
  return {
    store,
    saver,
    runs,
    records,
    assistants,
    manager,
    bus,
    watcher,
    audit,
    tokens,
    authorizer,
    log,
    ready: () => false,
  };
}

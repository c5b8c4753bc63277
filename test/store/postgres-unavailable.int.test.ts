/**
 * A Postgres server that stops answering fails calls with STORE_UNAVAILABLE within the
 * configured time instead of hanging: the server's statement timeout, the client's query
 * timeout, a bounded wait for a pooled connection, and `keel run` itself. The stall is real: a
 * TCP proxy in front of the test server that stops forwarding (no mocked pg).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresSaver } from "../../src/checkpoint/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { keelInProcess } from "../support/cli.js";
import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";

/** Forwards TCP to the test server until `stall()`: then it reads nothing and sends nothing. */
class StallingProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private stalled = false;
  port = 0;

  constructor(
    private readonly host: string,
    private readonly targetPort: number,
  ) {
    this.server = createServer((client) => {
      this.sockets.add(client);
      client.on("error", () => {});
      client.on("close", () => this.sockets.delete(client));
      // A connection made while stalled is accepted and never answered.
      if (this.stalled) return client.pause();
      const upstream = createConnection({ host: this.host, port: this.targetPort });
      this.sockets.add(upstream);
      upstream.on("error", () => {});
      upstream.on("close", () => this.sockets.delete(upstream));
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** The server "stops answering": every byte either way is held from now on. */
  stall(): void {
    this.stalled = true;
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.pause();
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const available = await postgresAvailable();
const describe_ = available ? describe : describe.skip;

describe_("Postgres that stops answering: STORE_UNAVAILABLE, not a hang", () => {
  let database: Awaited<ReturnType<typeof createMigratedDatabase>>;
  const proxies: StallingProxy[] = [];
  const stores: Store[] = [];

  beforeAll(async () => {
    database = await createMigratedDatabase("pg_unavailable");
  });
  afterAll(async () => {
    for (const store of stores) await store.close().catch(() => {});
    for (const proxy of proxies) await proxy.close();
    await database?.drop();
  });

  /** A URL of the test database through a new stalling proxy. */
  async function proxied(): Promise<{ url: string; proxy: StallingProxy }> {
    const target = new URL(database.url);
    const proxy = new StallingProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    proxies.push(proxy);
    const url = new URL(database.url);
    url.hostname = "127.0.0.1";
    url.port = String(proxy.port);
    return { url: url.toString(), proxy };
  }

  async function open(url: string, options: Parameters<typeof openStore>[0] = {}): Promise<Store> {
    const store = await openStore({ db: url, autoMigrate: false, ...options });
    stores.push(store);
    return store;
  }

  it("the server's statement timeout: a statement running too long is STORE_UNAVAILABLE", async () => {
    const store = await open(database.url, { postgresTimeouts: { statementMs: 200 } });
    await expect(sql`SELECT pg_sleep(5)`.execute(store.kysely)).rejects.toMatchObject({
      code: "STORE_UNAVAILABLE",
      message: expect.stringContaining("longer than 200 ms"),
    });
    // The connection is fine: the next statement runs.
    const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(store.kysely);
    expect(rows[0]?.one).toBe(1);
  });

  it("a stalled server: a query (Kysely, a saver) fails after the query timeout", async () => {
    const { url, proxy } = await proxied();
    const store = await open(url, { postgresTimeouts: { queryMs: 300 }, poolSize: 2 });
    await sql`SELECT 1`.execute(store.kysely);
    proxy.stall();
    await expect(sql`SELECT 1`.execute(store.kysely)).rejects.toMatchObject({
      code: "STORE_UNAVAILABLE",
      message: expect.stringContaining("no answer to a query within 300 ms"),
      exitCode: 2,
    });
    const saver = PostgresSaver.fromStore(store);
    await expect(saver.getTuple({ configurable: { thread_id: "any" } })).rejects.toMatchObject({
      code: "STORE_UNAVAILABLE",
    });
  });

  it("a stalled server: waiting for a pooled connection is bounded", async () => {
    const { url, proxy } = await proxied();
    const store = await open(url, {
      postgresTimeouts: { queryMs: 1500, connectMs: 300 },
      poolSize: 1,
    });
    await sql`SELECT 1`.execute(store.kysely);
    proxy.stall();
    // The only connection waits on the stalled server; the next call waits for it, bounded.
    const first = sql`SELECT 1`.execute(store.kysely);
    first.catch(() => {});
    await expect(sql`SELECT 2`.execute(store.kysely)).rejects.toMatchObject({
      code: "STORE_UNAVAILABLE",
      message: expect.stringContaining("gave no connection within 300 ms"),
    });
    await expect(first).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
  });

  it("keel run on a server that stops answering mid-run exits 2 with STORE_UNAVAILABLE", async () => {
    const { url, proxy } = await proxied();
    const dir = mkdtempSync(join(tmpdir(), "keel-pg-stall-"));
    try {
      // The node stalls the server, so the step's checkpoint is written to a server that no
      // longer answers. The in-process CLI shares this process's globals.
      (globalThis as { __keelTestStall?: () => void }).__keelTestStall = () => proxy.stall();
      writeFileSync(
        join(dir, "kinds.mjs"),
        "export function stall(state) { globalThis.__keelTestStall(); return { n: state.n + 1 }; }\n",
      );
      const doc = join(dir, "doc.json");
      writeFileSync(
        doc,
        JSON.stringify({
          ir_version: "1.0.0",
          id: "graph:stall",
          state_schema: { n: "int" },
          nodes: [
            { id: "a", kind: "./kinds.mjs:stall" },
            { id: "end", kind: "halt" },
          ],
        }),
      );
      const run = await keelInProcess(["run", doc, "--input", '{"n":1}', "--db", url, "--json"], {
        cwd: dir,
        env: { KEEL_PG_QUERY_TIMEOUT_MS: "500", KEEL_PG_CONNECT_TIMEOUT_MS: "500" },
      });
      expect(run.exitCode, run.stdout).toBe(2);
      expect((run.json.error as { code: string }).code).toBe("STORE_UNAVAILABLE");
    } finally {
      delete (globalThis as { __keelTestStall?: () => void }).__keelTestStall;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a bad timeout in the environment is CONFIG_INVALID naming the variable", async () => {
    const run = await keelInProcess(["runs", "list", "--db", database.url, "--json"], {
      env: { KEEL_PG_QUERY_TIMEOUT_MS: "soon" },
    });
    expect(run.exitCode).toBe(2);
    expect(run.json.error).toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining("KEEL_PG_QUERY_TIMEOUT_MS"),
    });
  });
});

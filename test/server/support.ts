import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import pino from "pino";
import { TokenStore } from "../../src/server/auth/token-store.js";
import { type RunningServer, startServer } from "../../src/server/index.js";
import { openStore, type Store } from "../../src/store/index.js";

export const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

/** A server on a fresh SQLite database, on an ephemeral loopback port, with a token per need. */
export interface TestServer {
  server: RunningServer;
  store: Store;
  dir: string;
  tokens: Record<"admin" | "read" | "runs" | "approver" | "jobs" | "memory", string>;
  client(token?: string): Client;
  close(): Promise<void>;
}

export async function startTestServer(
  options: {
    dir?: string;
    extra?: Partial<Parameters<typeof startServer>[0]>;
    /** A project scope: the database in `<dir>/.keel/` (job files go beside it), not `<dir>/`. */
    project?: boolean;
    /** A Postgres database URL instead of a SQLite file. */
    db?: string;
  } = {},
): Promise<TestServer> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "keel-serve-"));
  if (options.project) mkdirSync(join(dir, ".keel"), { recursive: true });
  const store = await openStore(
    options.db
      ? { db: options.db, poolSize: 4, cwd: dir }
      : options.project
        ? { db: join(dir, ".keel", "keel.db"), cwd: dir }
        : { db: join(dir, "keel.db") },
  );
  const tokenStore = new TokenStore(store);
  const make = async (name: string, capabilities: string[]) =>
    (await tokenStore.create({ name, capabilities })).secret;
  const tokens = {
    admin: await make("admin", ["admin"]),
    read: await make("reader", ["read"]),
    runs: await make("runner", ["read", "runs"]),
    approver: await make("approver", ["read", "approve"]),
    jobs: await make("operator", ["read", "jobs"]),
    memory: await make("memory", ["read", "memory"]),
  };
  const server = await startServer({
    store,
    configPath: join(FIXTURES, "keel.json"),
    port: 0,
    logger: pino({ level: "silent" }),
    ...options.extra,
  });
  return {
    server,
    store,
    dir,
    tokens,
    client: (token = tokens.runs) => new Client({ apiUrl: server.url, apiKey: token }),
    close: async () => {
      await server.close();
      await store.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

import type pg from "pg";
import { KeelError } from "../../../core/index.js";

/**
 * How long Keel waits on Postgres before giving up with STORE_UNAVAILABLE: a server that stops
 * answering (a partition, a frozen host) must not hang a run forever.
 */
export interface PostgresTimeouts {
  /** Server-side `statement_timeout`: a statement running longer is cancelled by the server. */
  readonly statementMs: number;
  /** Client-side: a query with no answer for this long fails and its connection is dropped. */
  readonly queryMs: number;
  /** Connecting, and waiting for a free connection of a busy pool. */
  readonly connectMs: number;
  /** TCP keepalive: the first probe of an idle connection after this long. */
  readonly keepAliveMs: number;
}

/** The defaults; `KEEL_PG_STATEMENT_TIMEOUT_MS`, `…_QUERY_…`, `…_CONNECT_…` change them. */
export const DEFAULT_POSTGRES_TIMEOUTS: PostgresTimeouts = {
  statementMs: 60_000,
  queryMs: 75_000,
  connectMs: 10_000,
  keepAliveMs: 10_000,
};

const ENV = {
  statementMs: "KEEL_PG_STATEMENT_TIMEOUT_MS",
  queryMs: "KEEL_PG_QUERY_TIMEOUT_MS",
  connectMs: "KEEL_PG_CONNECT_TIMEOUT_MS",
} as const;

/**
 * The timeouts: `given` over the environment's over the defaults, each a whole number of
 * milliseconds of at least 1 (CONFIG_INVALID naming the variable otherwise).
 */
export function resolvePostgresTimeouts(
  given: Partial<PostgresTimeouts> = {},
  env: NodeJS.ProcessEnv = process.env,
): PostgresTimeouts {
  const resolved: Record<keyof PostgresTimeouts, number> = { ...DEFAULT_POSTGRES_TIMEOUTS };
  for (const [key, variable] of Object.entries(ENV) as [keyof typeof ENV, string][]) {
    const text = env[variable];
    if (text === undefined || text.trim() === "") continue;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) {
      throw new KeelError(
        "CONFIG_INVALID",
        `${variable} must be a whole number of milliseconds, not "${text}".`,
        { details: { variable, value: text } },
      );
    }
    resolved[key] = value;
  }
  for (const [key, value] of Object.entries(given) as [keyof PostgresTimeouts, number][]) {
    if (value !== undefined) resolved[key] = value;
  }
  return resolved;
}

/** The pg.Pool settings that carry the timeouts. */
export function poolTimeoutSettings(timeouts: PostgresTimeouts): pg.PoolConfig {
  return {
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.queryMs,
    connectionTimeoutMillis: timeouts.connectMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: timeouts.keepAliveMs,
  };
}

/**
 * STORE_UNAVAILABLE for an error that says the server did not answer in time or the connection
 * was lost; undefined for any other error (a constraint violation stays what it is).
 */
export function unavailableError(
  error: unknown,
  url: string,
  timeouts: PostgresTimeouts,
): KeelError | undefined {
  if (error instanceof KeelError) return undefined;
  const message = error instanceof Error ? error.message : "";
  const code = (error as { code?: unknown } | null)?.code;
  let what: string | undefined;
  if (message === "Query read timeout")
    what = `sent no answer to a query within ${timeouts.queryMs} ms`;
  else if (message.startsWith("timeout exceeded when trying to connect"))
    what = `gave no connection within ${timeouts.connectMs} ms (the server does not answer, or every pooled connection is busy)`;
  else if (code === "57014" && /statement timeout/i.test(message))
    what = `cancelled a statement that ran longer than ${timeouts.statementMs} ms`;
  else if (
    message.startsWith("Connection terminated") ||
    code === "ECONNRESET" ||
    code === "ECONNREFUSED" ||
    code === "ETIMEDOUT" ||
    code === "EPIPE" ||
    code === "57P01" ||
    code === "57P02" ||
    code === "57P03" ||
    (typeof code === "string" && code.startsWith("08"))
  )
    what = `dropped the connection (${message || String(code)})`;
  if (what === undefined) return undefined;
  return new KeelError("STORE_UNAVAILABLE", `Postgres at ${url} ${what}.`, {
    cause: error,
    details: { url, code: typeof code === "string" ? code : null, timeouts },
    hint: "Check that the server is up and reachable, then retry (a run resumes from its last checkpoint). The timeouts are KEEL_PG_QUERY_TIMEOUT_MS, KEEL_PG_STATEMENT_TIMEOUT_MS and KEEL_PG_CONNECT_TIMEOUT_MS.",
  });
}

type Callback = (error: unknown, ...rest: unknown[]) => void;

/**
 * Makes every error of `pool` that says Postgres is unavailable a STORE_UNAVAILABLE KeelError
 * (for Kysely, the savers, the ledger and the jobs, which all query through this pool), and
 * drops a connection whose query timed out: its answer may still arrive and would be read as
 * the next query's.
 */
export function guardPool(pool: pg.Pool, url: string, timeouts: PostgresTimeouts): void {
  const convert = (error: unknown) => unavailableError(error, url, timeouts) ?? error;
  pool.on("connect", (client: pg.PoolClient) => {
    // A checked-out client whose connection ends (dropped below, or by the server) emits
    // `error` with no listener of the pool's: without this the process would crash. The query
    // in flight, if any, fails on its own; the pool discards the client when it comes back.
    client.on("error", () => {});
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    const dropIfTimedOut = (error: unknown) => {
      if (error instanceof Error && error.message === "Query read timeout")
        (
          client as unknown as { connection?: { stream?: { destroy(): void } } }
        ).connection?.stream?.destroy();
    };
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
      const last = args.at(-1);
      if (typeof last === "function") {
        args[args.length - 1] = (error: unknown, ...rest: unknown[]) => {
          if (error) dropIfTimedOut(error);
          (last as Callback)(error ? convert(error) : error, ...rest);
        };
        return query(...args);
      }
      const result = query(...args);
      if (result instanceof Promise)
        return result.catch((error: unknown) => {
          dropIfTimedOut(error);
          throw convert(error);
        });
      return result;
    };
  });
  // pool.query reports a client's own error events (a connection that ends mid-query) itself.
  const poolQuery = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
    const last = args.at(-1);
    if (typeof last === "function") {
      args[args.length - 1] = (error: unknown, ...rest: unknown[]) =>
        (last as Callback)(error ? convert(error) : error, ...rest);
      return poolQuery(...args);
    }
    const result = poolQuery(...args);
    if (result instanceof Promise)
      return result.catch((error: unknown) => {
        throw convert(error);
      });
    return result;
  };
  const connect = pool.connect.bind(pool) as (callback?: Callback) => unknown;
  (pool as unknown as { connect: (callback?: Callback) => unknown }).connect = (callback) => {
    if (callback)
      return connect((error, ...rest) => callback(error ? convert(error) : error, ...rest));
    return (connect() as Promise<unknown>).catch((error: unknown) => {
      throw convert(error);
    });
  };
}

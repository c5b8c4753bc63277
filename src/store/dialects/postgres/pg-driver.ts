import { createRequire } from "node:module";
import type pg from "pg";

let driver: typeof pg | undefined;

/**
 * The `pg` package, loaded when a Postgres pool is first opened. A process that only ever opens
 * SQLite (the default) never loads it: pg's load costs ~50 ms of CPU, and its Cloudflare probe
 * constructs a `Response` at load, which makes Node load its bundled fetch implementation too.
 *
 * @example
 * const { Pool } = await loadPgDriver();
 */
export async function loadPgDriver(): Promise<typeof pg> {
  driver ??= (await import("pg")).default;
  return driver;
}

/**
 * `pg` for synchronous callers (escaping a literal, recognising a server error), which run only
 * once a pool exists; should one run first (a pool the caller built with its own pg), pg is
 * required on the spot.
 */
export function pgDriver(): typeof pg {
  driver ??= createRequire(import.meta.url)("pg") as typeof pg;
  return driver;
}

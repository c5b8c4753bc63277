/**
 * Once per `vitest run`: names the run (every Postgres database a test creates carries the name,
 * see postgres.ts) and, when the run ends, drops those databases together — plus any left by a
 * run that died more than a day ago.
 */
import pg from "pg";
import { dropDatabases, runDatabasePrefix, TEST_DATABASE_URL } from "./postgres.js";

const DAY_MS = 24 * 60 * 60 * 1000;

export function setup(): () => Promise<void> {
  // Vitest calls this for the root config and again for each test project, in one process: the
  // first call names the run and its teardown (the last to run) drops the run's databases.
  if (process.env.KEEL_TEST_RUN_ID !== undefined) return async () => {};
  // The run id starts with its start time (base 36), which is how a later run tells a stale one.
  const run = `r${Date.now().toString(36)}${process.pid.toString(36)}`;
  process.env.KEEL_TEST_RUN_ID = run;
  return async () => {
    const client = new pg.Client({
      connectionString: TEST_DATABASE_URL,
      connectionTimeoutMillis: 3000,
    });
    try {
      await client.connect();
    } catch {
      return; // No server: nothing was created on it.
    }
    let names: string[];
    try {
      const rows = await client.query<{ datname: string }>(
        "select datname from pg_database where datname like 'keel\\_r%'",
      );
      names = rows.rows
        .map((row) => row.datname)
        .filter((name) => name.startsWith(runDatabasePrefix(run)) || staleRun(name));
    } finally {
      await client.end();
    }
    await dropDatabases(names);
  };
}

/** Whether `name` belongs to a run that started more than a day ago. */
function staleRun(name: string): boolean {
  const match = /^keel_r([0-9a-z]{8})/.exec(name);
  if (!match?.[1]) return false;
  return Date.now() - Number.parseInt(match[1], 36) > DAY_MS;
}

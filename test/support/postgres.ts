import pg from "pg";

/** The server the Postgres suites use; override with KEEL_TEST_DATABASE_URL. */
export const TEST_DATABASE_URL =
  process.env.KEEL_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

let reachable: Promise<boolean> | undefined;

/**
 * Whether the test Postgres server answers. Under `CI=true` an unreachable server is a failure,
 * not a skip: CI must never go green without having run the Postgres suites.
 */
export function postgresAvailable(): Promise<boolean> {
  reachable ??= (async () => {
    const client = new pg.Client({
      connectionString: TEST_DATABASE_URL,
      connectionTimeoutMillis: 3000,
    });
    try {
      await client.connect();
      await client.query("select 1");
      return true;
    } catch (error) {
      if (process.env.CI === "true") {
        throw new Error(
          `Postgres is unreachable at ${TEST_DATABASE_URL} under CI=true: ${String(error)}`,
        );
      }
      console.warn(
        `\n*** Postgres is unreachable at ${TEST_DATABASE_URL}: the Postgres suites are SKIPPED. ***\n` +
          "*** Start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start ***\n",
      );
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return reachable;
}

/**
 * The test run this process belongs to (set by test/support/global-setup.ts): databases created
 * under a run are dropped together when the run ends rather than one by one in `afterAll`.
 * On Postgres 15 every `DROP DATABASE` forces an immediate checkpoint (seconds under load, with
 * every other test's dirty pages to flush); back to back at the end, all but the first are cheap.
 */
export const TEST_RUN_ID = process.env.KEEL_TEST_RUN_ID;

/** The prefix of every database a test run creates (`keel_<run>_`), for the run's teardown. */
export function runDatabasePrefix(run: string): string {
  return `keel_${run}_`;
}

let created = 0;

/**
 * Creates a fresh database for one test file and returns its URL and a `drop` to call in
 * `afterAll`. A database (not a schema) per file keeps migrations and advisory locks isolated.
 * With `template` (see templates.ts: `createMigratedDatabase`) the database starts as a copy of
 * that one; otherwise it is empty (with `icuLocale`, collating by that ICU locale).
 *
 * Commits on it do not wait for the WAL flush (`synchronousCommit: "off"`, the default) unless
 * asked: see `relaxCommits`. Benchmarks pass `"on"`, as they measure the real commit.
 */
export async function createTestDatabase(
  label: string,
  options: {
    template?: string;
    synchronousCommit?: "on" | "off";
    /** An ICU locale for the database's default collation (an empty database, from template0). */
    icuLocale?: string;
  } = {},
): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  // Postgres cuts identifiers at 63 bytes: a short label, then what makes the name unique.
  const slug = label
    .replace(/[^a-z0-9_]/gi, "_")
    .toLowerCase()
    .slice(0, 24);
  const unique = `${process.pid}_${(++created).toString(36)}_${Date.now().toString(36)}`;
  const name = `${TEST_RUN_ID ? runDatabasePrefix(TEST_RUN_ID) : "keel_"}${slug}_${unique}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    const from =
      options.icuLocale !== undefined
        ? ` template template0 locale_provider icu icu_locale '${options.icuLocale}' locale 'C.UTF-8'`
        : options.template !== undefined
          ? ` template "${options.template}"`
          : "";
    await admin.query(`create database "${name}"${from}`);
    if (options.synchronousCommit !== "on") await relaxCommits(admin, name);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      // Under a run, the run's teardown drops it (with everything else the run made).
      if (TEST_RUN_ID) return;
      await dropDatabases([name]);
    },
  };
}

/**
 * Sets `synchronous_commit = off` on a test database: a commit returns before its WAL record is
 * flushed to disk (~0.4 ms here against 5–7 ms), which is most of a Postgres suite's time. No
 * test loses anything by it: the suites kill client processes, never the server, and a commit
 * the server acknowledged is visible to every later session either way. `KEEL_TEST_SYNC_COMMIT=on`
 * keeps the server's default.
 */
export async function relaxCommits(admin: pg.Client, database: string): Promise<void> {
  if (process.env.KEEL_TEST_SYNC_COMMIT === "on") return;
  await admin.query(`alter database "${database}" set synchronous_commit = off`);
}

/** Drops databases (closing any session still in them), a few at a time. */
export async function dropDatabases(names: readonly string[]): Promise<void> {
  const queue = [...names];
  const dropOne = async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        await client.query(`drop database if exists "${name}" with (force)`);
      }
    } finally {
      await client.end();
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, queue.length) }, dropOne));
}

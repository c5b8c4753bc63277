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
 * Creates a fresh database for one test file and returns its URL and a `drop` to call in
 * `afterAll`. A database (not a schema) per file keeps migrations and advisory locks isolated.
 */
export async function createTestDatabase(
  label: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `keel_${label.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        await client.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

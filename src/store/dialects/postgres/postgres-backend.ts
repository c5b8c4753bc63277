import { Kysely, PostgresDialect, sql } from "kysely";
import type pg from "pg";
import { KeelError } from "../../../core/index.js";
import type { KernelDatabase } from "../../schema.js";
import type { StoreCapabilities, StoreLocation } from "../../types.js";
import type { StoreBackend } from "../backend.js";
import type { SchemaObject, SchemaSnapshot } from "../schema-snapshot.js";
import { loadPgDriver, pgDriver } from "./pg-driver.js";
import { introspectPostgres } from "./postgres-introspector.js";
import { postgresSchemaObjects } from "./postgres-schema-objects.js";
import {
  guardPool,
  type PostgresTimeouts,
  poolTimeoutSettings,
  resolvePostgresTimeouts,
} from "./postgres-timeouts.js";

const CAPABILITIES: StoreCapabilities = Object.freeze({
  supportsSkipLocked: true,
  supportsAdvisoryLocks: true,
  supportsTransactionalDdl: true,
  supportsMultipleConnections: true,
  supportsReturning: true,
  supportsNativeJson: true,
});

/** The advisory-lock key every Keel process takes to migrate ("keel" in ASCII). */
export const MIGRATION_LOCK_KEY = 0x6b65656c;

/** Where Postgres keeps the kernel's user_version: a comment on the migration ledger table. */
const USER_VERSION_PREFIX = "keel:user_version=";

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * Keel stores `_at` milliseconds as BIGINT; pg returns BIGINT as a string by default. This pool
 * parses it to a number (safe up to 2^53, far beyond any millisecond timestamp). Scoped to the
 * pool, not pg's global type table, so other code in the process is unaffected.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === INT8_OID && format !== "binary") return (value: string) => Number(value);
    if (oid === NUMERIC_OID && format !== "binary") return (value: string) => Number(value);
    return pgDriver().types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig["getTypeParser"],
};

export interface PostgresOpenOptions {
  poolSize: number;
  /** Statement, query and connection timeouts (defaults: `DEFAULT_POSTGRES_TIMEOUTS` and env). */
  timeouts?: Partial<PostgresTimeouts>;
  /** Every transaction read-only, enforced by the server (dry runs, status, doctor). */
  readOnly?: boolean;
}

/** Connects a pool to `url` and proves the server answers before handing the store out. */
export async function openPostgresBackend(
  location: Extract<StoreLocation, { dialect: "postgres" }>,
  options: PostgresOpenOptions,
): Promise<StoreBackend> {
  const timeouts = resolvePostgresTimeouts(options.timeouts);
  const { Pool } = await loadPgDriver();
  const pool = new Pool({
    connectionString: location.url,
    max: options.poolSize,
    types,
    ...(options.readOnly ? { options: "-c default_transaction_read_only=on" } : {}),
    ...poolTimeoutSettings(timeouts),
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on("error", () => {});
  guardPool(pool, redactUrl(location.url), timeouts);
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => {});
    throw postgresOpenError(error, location.url);
  }
  const kysely = new Kysely<KernelDatabase>({ dialect: new PostgresDialect({ pool }) });
  return new PostgresBackend(location, pool, kysely);
}

/** Hides the password of a connection URL for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "<unparsable postgres URL>";
  }
}

function postgresOpenError(given: unknown, url: string): KeelError {
  // The pool's guard already made a timeout STORE_UNAVAILABLE; at open it is a failed open.
  const error =
    given instanceof KeelError && given.code === "STORE_UNAVAILABLE" ? given.cause : given;
  const code = (error as { code?: unknown } | null)?.code;
  const shown = redactUrl(url);
  const reason = error instanceof Error ? error.message : String(error);
  const hint =
    code === "3D000"
      ? "Create the database first (`createdb <name>`), or fix the name in the URL."
      : code === "28P01" || code === "28000"
        ? "Check the user and password in the URL."
        : "Check that the server is running and reachable, and the URL in --db / KEEL_DATABASE_URL.";
  return new KeelError("STORE_OPEN_FAILED", `Cannot connect to Postgres at ${shown}: ${reason}.`, {
    cause: error,
    details: { url: shown, code: typeof code === "string" ? code : null },
    hint,
  });
}

class PostgresBackend implements StoreBackend {
  readonly name = "postgres" as const;
  readonly capabilities = CAPABILITIES;
  readonly native;
  #closed = false;

  constructor(
    readonly location: StoreLocation,
    readonly pool: pg.Pool,
    readonly kysely: Kysely<KernelDatabase>,
  ) {
    this.native = { dialect: "postgres" as const, pool };
  }

  async executeScript(db: Kysely<KernelDatabase>, script: string): Promise<void> {
    // No parameters: pg sends it with the simple query protocol, which runs many statements.
    await sql.raw(script).execute(db);
  }

  async readUserVersion(db: Kysely<KernelDatabase>): Promise<number> {
    const result = await sql<{ comment: string | null }>`
      SELECT obj_description(to_regclass('config_schema_versions'), 'pg_class') AS comment`.execute(
      db,
    );
    const comment = result.rows[0]?.comment ?? "";
    return comment.startsWith(USER_VERSION_PREFIX)
      ? Number.parseInt(comment.slice(USER_VERSION_PREFIX.length), 10) || 0
      : 0;
  }

  async writeUserVersion(db: Kysely<KernelDatabase>, version: number): Promise<void> {
    await sql
      .raw(
        `COMMENT ON TABLE config_schema_versions IS '${USER_VERSION_PREFIX}${Math.trunc(version)}'`,
      )
      .execute(db);
  }

  async withMigrationLock<T>(fn: (db: Kysely<KernelDatabase>) => Promise<T>): Promise<T> {
    return this.kysely.connection().execute(async (connection) => {
      await sql`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(connection);
      try {
        return await fn(connection);
      } finally {
        await sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(connection);
      }
    });
  }

  introspect(db: Kysely<KernelDatabase>): Promise<SchemaSnapshot> {
    return introspectPostgres(db);
  }

  schemaObjects(db: Kysely<KernelDatabase>): Promise<SchemaObject[]> {
    return postgresSchemaObjects(db);
  }

  async tableExists(db: Kysely<KernelDatabase>, table: string): Promise<boolean> {
    const result = await sql<{
      oid: string | null;
    }>`SELECT to_regclass(${table})::text AS oid`.execute(db);
    return result.rows[0]?.oid != null;
  }

  async relationNames(db: Kysely<KernelDatabase>): Promise<string[]> {
    const result = await sql<{ name: string }>`
      SELECT c.relname::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ANY (current_schemas(false)) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`.execute(
      db,
    );
    return result.rows.map((row) => row.name);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.kysely.destroy();
  }
}

import { type Kysely, sql } from "kysely";
import { type Clock, systemClock } from "../../core/index.js";
import type { KernelDatabase } from "../schema.js";
import type { StoreDialectName } from "../types.js";
import {
  KvKeyInvalidError,
  KvOperationFailedError,
  KvValueNotSerializableError,
  KvValueTooLargeError,
} from "./errors.js";

/** One KV entry as `list` returns it. */
export interface KvEntry {
  readonly key: string;
  readonly value: unknown;
  readonly nodePath: string | null;
  readonly updatedAt: number;
}

/** Scoping of a KV call to a node; omitted or null means the plugin's global entries. */
export interface KvScope {
  readonly nodePath?: string | null;
}

/**
 * The `kv` storage of a plugin (plugin-kv-api.md, mode A) on `state_plugin_kv`, scoped to the
 * plugin id captured when it was built. Each operation is atomic on its own; there is no
 * transaction in this mode by design.
 *
 * @example
 * await kv.set("pins.last", { hash: "ab12" }, { nodePath: "skills/a.md" });
 * await kv.get("pins.last", { nodePath: "skills/a.md" }); // { hash: "ab12" }
 */
export interface KvStore {
  get<T = unknown>(key: string, options?: KvScope): Promise<T | null>;
  set<T = unknown>(key: string, value: T, options?: KvScope): Promise<void>;
  delete(key: string, options?: KvScope): Promise<boolean>;
  list(options?: KvScope & { readonly prefix?: string }): Promise<KvEntry[]>;
}

/** Longest key, in UTF-8 bytes. */
export const KV_MAX_KEY_BYTES = 256;
/** Largest encoded value (1 MiB). */
export const KV_MAX_VALUE_BYTES = 1024 * 1024;

/**
 * Builds the KV accessor of `pluginId`. Keys compare and list in code-point order on both
 * dialects: Postgres compares them with the "C" collation, whatever the database's locale.
 */
export function createKvStore(
  kysely: Kysely<KernelDatabase>,
  pluginId: string,
  clock: Clock = systemClock,
  dialect: StoreDialectName = "sqlite",
): KvStore {
  const nodeOf = (options?: KvScope) => options?.nodePath ?? "";
  const keyColumn =
    dialect === "postgres"
      ? sql<string>`${sql.ref("key")} COLLATE "C"`
      : sql<string>`${sql.ref("key")}`;
  const guarded = async <T>(what: string, operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } catch (error) {
      throw new KvOperationFailedError(
        `The KV ${what} of plugin "${pluginId}" failed in the database.`,
        {
          cause: error,
        },
      );
    }
  };
  return {
    async get<T>(key: string, options?: KvScope) {
      checkKey(key);
      const row = await guarded("get", () =>
        kysely
          .selectFrom("state_plugin_kv")
          .select("value_json")
          .where("plugin_id", "=", pluginId)
          .where("node_id", "=", nodeOf(options))
          .where("key", "=", key)
          .executeTakeFirst(),
      );
      return row ? (JSON.parse(row.value_json) as T) : null;
    },
    async set(key, value, options) {
      checkKey(key);
      const valueJson = encodeValue(value);
      const updatedAt = clock.now();
      await guarded("set", () =>
        kysely
          .insertInto("state_plugin_kv")
          .values({
            plugin_id: pluginId,
            node_id: nodeOf(options),
            key,
            value_json: valueJson,
            updated_at: updatedAt,
          })
          .onConflict((conflict) =>
            conflict
              .columns(["plugin_id", "node_id", "key"])
              .doUpdateSet({ value_json: valueJson, updated_at: updatedAt }),
          )
          .execute(),
      );
    },
    async delete(key, options) {
      checkKey(key);
      const result = await guarded("delete", () =>
        kysely
          .deleteFrom("state_plugin_kv")
          .where("plugin_id", "=", pluginId)
          .where("node_id", "=", nodeOf(options))
          .where("key", "=", key)
          .executeTakeFirst(),
      );
      return Number(result.numDeletedRows) > 0;
    },
    async list(options) {
      let query = kysely
        .selectFrom("state_plugin_kv")
        .selectAll()
        .where("plugin_id", "=", pluginId)
        .where("node_id", "=", nodeOf(options));
      if (options?.prefix) {
        // A range, not LIKE: keys may contain % and _.
        query = query
          .where(keyColumn, ">=", options.prefix)
          .where(keyColumn, "<", `${options.prefix}\u{10FFFF}`);
      }
      const rows = await guarded("list", () => query.orderBy(keyColumn).execute());
      return rows
        .filter((row) => !options?.prefix || row.key.startsWith(options.prefix))
        .map((row) => ({
          key: row.key,
          value: JSON.parse(row.value_json),
          nodePath: row.node_id === "" ? null : row.node_id,
          updatedAt: Number(row.updated_at),
        }));
    },
  };
}

function checkKey(key: unknown): asserts key is string {
  if (typeof key !== "string" || key.length === 0) {
    throw new KvKeyInvalidError("A KV key must be a non-empty string.", {
      details: { key: String(key) },
    });
  }
  const bytes = Buffer.byteLength(key, "utf8");
  if (bytes > KV_MAX_KEY_BYTES) {
    throw new KvKeyInvalidError(
      `A KV key may be at most ${KV_MAX_KEY_BYTES} UTF-8 bytes; this one is ${bytes}.`,
      {
        details: { bytes },
      },
    );
  }
}

/** JSON-encodes a value after checking it is plain JSON data: no undefined, functions, cycles or class instances. */
function encodeValue(value: unknown): string {
  const problem = findUnserializable(value, "", new Set());
  if (problem) {
    throw new KvValueNotSerializableError(`The KV value is not JSON-serialisable: ${problem}.`, {
      hint: "Store plain objects, arrays, strings, finite numbers, booleans and null.",
    });
  }
  const json = JSON.stringify(value);
  const bytes = Buffer.byteLength(json, "utf8");
  if (bytes > KV_MAX_VALUE_BYTES) {
    throw new KvValueTooLargeError(
      `The KV value is ${bytes} bytes encoded; the limit is ${KV_MAX_VALUE_BYTES}.`,
      {
        details: { bytes, limit: KV_MAX_VALUE_BYTES },
      },
    );
  }
  return json;
}

function findUnserializable(value: unknown, path: string, seen: Set<object>): string | undefined {
  const at = path || "the value";
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : `${at} is ${value}`;
  if (typeof value !== "object")
    return `${at} is ${typeof value === "undefined" ? "undefined" : `a ${typeof value}`}`;
  if (seen.has(value)) return `${at} refers back to itself (a cycle)`;
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
    return `${at} is a ${proto?.constructor?.name ?? "class instance"}, not a plain object`;
  }
  seen.add(value);
  const entries = Array.isArray(value)
    ? value.map((v, i) => [String(i), v] as const)
    : Object.entries(value);
  for (const [key, child] of entries) {
    const found = findUnserializable(child, `${path}/${key}`, seen);
    if (found) return found;
  }
  seen.delete(value);
  return undefined;
}

import { z } from "zod";
import { type Clock, compareCodePoints, KeelError, systemClock } from "../../core/index.js";
import type { Store } from "../types.js";

/** Preferences Keel itself reads, with their defaults and the shape their values must have. */
export const KNOWN_PREFERENCES = {
  auto_migrate: {
    description: "Apply pending kernel migrations when a store opens.",
    default: true,
    schema: z.boolean(),
  },
  // The rules' bounds for IR runs, per step (the defaults are src/rules' IR_RULE_LIMITS, which
  // this layer cannot import; a test checks they agree).
  "rules.max_firings": {
    description: "Rules an IR run step may fire before it fails with RULES_LIMIT.",
    default: 10_000,
    schema: z.number().int().min(1),
  },
  "rules.max_loop_iterations": {
    description: "Iterations of one while / loop-for-count in an IR run's rules.",
    default: 1_000_000,
    schema: z.number().int().min(1),
  },
  "rules.max_facts": {
    description: "Facts an IR run's working memory may hold.",
    default: 100_000,
    schema: z.number().int().min(1),
  },
  "rules.max_run_ms": {
    description: "Wall time of one IR run step's rules, in milliseconds.",
    default: 5_000,
    schema: z.number().int().min(1),
  },
} as const satisfies Record<string, { description: string; default: unknown; schema: z.ZodType }>;

/** One preference as `keel config get|list` shows it. */
export interface PreferenceEntry {
  readonly key: string;
  readonly value: unknown;
  /** `set`: stored in config_preferences; `default`: Keel's default, nothing stored. */
  readonly source: "set" | "default";
  readonly updatedAt: number | null;
}

const KEY = /^[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)*$/i;

function assertKey(key: string): void {
  if (!KEY.test(key) || key.length > 200) {
    throw new KeelError("INVALID_ARGUMENT", `"${key}" is not a valid preference key.`, {
      details: { key },
      hint: "Keys are dot-paths of letters, digits, _ and -, e.g. jobs.minimum_ttl_seconds.",
    });
  }
}

/**
 * Reads a command-line value: JSON when it parses (`true`, `42`, `{"a":1}`, `"text"`),
 * otherwise the text itself.
 */
export function parsePreferenceValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One preference; a key neither stored nor known is NOT_FOUND (exit 5). */
export async function getPreference(store: Store, key: string): Promise<PreferenceEntry> {
  assertKey(key);
  const row = await store.kysely
    .selectFrom("config_preferences")
    .selectAll()
    .where("key", "=", key)
    .executeTakeFirst();
  if (row)
    return {
      key,
      value: JSON.parse(row.value_json),
      source: "set",
      updatedAt: Number(row.updated_at),
    };
  const known = (KNOWN_PREFERENCES as Record<string, { default: unknown }>)[key];
  if (known) return { key, value: known.default, source: "default", updatedAt: null };
  throw new KeelError("NOT_FOUND", `No preference "${key}" is set.`, {
    details: { key },
    hint: "List preferences with `keel config list`; set one with `keel config set <key> <value>`.",
  });
}

/**
 * Stores a preference (an upsert). Values of preferences Keel knows are validated; others are
 * stored as given (any JSON value), for modules and plugins to read.
 *
 * @example
 * await setPreference(store, "auto_migrate", false);
 */
export async function setPreference(
  store: Store,
  key: string,
  value: unknown,
  clock: Clock = systemClock,
): Promise<PreferenceEntry> {
  assertKey(key);
  const known = (KNOWN_PREFERENCES as Record<string, { schema: z.ZodType; description: string }>)[
    key
  ];
  if (known) {
    const parsed = known.schema.safeParse(value);
    if (!parsed.success) {
      throw new KeelError(
        "INVALID_ARGUMENT",
        `Preference ${key} must be ${describeSchema(known.schema)}; got ${JSON.stringify(value)}.`,
        {
          details: { key, value, problems: parsed.error.issues.map((i) => i.message) },
          hint: known.description,
        },
      );
    }
  }
  const valueJson = JSON.stringify(value);
  if (valueJson === undefined) {
    throw new KeelError("INVALID_ARGUMENT", `The value for ${key} is not JSON-serialisable.`);
  }
  const updatedAt = clock.now();
  await store.kysely
    .insertInto("config_preferences")
    .values({ key, value_json: valueJson, updated_at: updatedAt })
    .onConflict((conflict) =>
      conflict.column("key").doUpdateSet({ value_json: valueJson, updated_at: updatedAt }),
    )
    .execute();
  return { key, value, source: "set", updatedAt };
}

/** Removes a stored preference (back to the default); false when none was stored. */
export async function unsetPreference(store: Store, key: string): Promise<boolean> {
  assertKey(key);
  const result = await store.kysely
    .deleteFrom("config_preferences")
    .where("key", "=", key)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Every stored preference plus the defaults of known ones not stored, by key. */
export async function listPreferences(store: Store): Promise<PreferenceEntry[]> {
  const rows = await store.kysely
    .selectFrom("config_preferences")
    .selectAll()
    .orderBy("key")
    .execute();
  const entries: PreferenceEntry[] = rows.map((row) => ({
    key: row.key,
    value: JSON.parse(row.value_json),
    source: "set",
    updatedAt: Number(row.updated_at),
  }));
  for (const [key, known] of Object.entries(KNOWN_PREFERENCES)) {
    if (!entries.some((entry) => entry.key === key)) {
      entries.push({ key, value: known.default, source: "default", updatedAt: null });
    }
  }
  return entries.sort((a, b) => compareCodePoints(a.key, b.key));
}

function describeSchema(schema: z.ZodType): string {
  return schema instanceof z.ZodBoolean ? "true or false" : "a valid value";
}

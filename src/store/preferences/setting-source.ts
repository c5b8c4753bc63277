import { join } from "node:path";
import { readScopeConfig, SCOPE_CONFIG_FILE } from "../scope-config.js";
import type { Store } from "../types.js";
import { getPreference } from "./preferences.js";

/**
 * Where a setting's value comes from (the seed-004 CLI contract's `config show --source`):
 * Keel's `default`, the `project` or `global` scope (its `.keel/config.json` or its database's
 * `config_preferences`), the environment (`env`) or a command-line flag (`flag`).
 */
export type SettingSource = "default" | "project" | "global" | "env" | "flag";

/** A setting's effective value and its origin, with the exact place (file, variable, flag). */
export interface SettingOrigin {
  readonly key: string;
  readonly value: unknown;
  readonly source: SettingSource;
  /** Where exactly: `--db`, `KEEL_DATABASE_URL`, `<dir>/config.json`, `config_preferences`, … */
  readonly from: string;
}

/** What decided the store a command opened: its flags, environment and scope. */
export interface SettingContext {
  scope: "project" | "global";
  keelDir: string;
  /** The `--db` flag, when given. */
  db?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The effective value of `key` and where it comes from, following the precedence Keel applies
 * (flag > environment > scope config file > scope database > default). `database` and
 * `auto_migrate` are read before a database opens, so they may come from the flag, the
 * environment or `.keel/config.json`; every other key is a preference of the scope's database.
 * A key neither set nor known is NOT_FOUND (exit 5).
 *
 * @example
 * await settingOrigin(store, "auto_migrate", { scope: "project", keelDir: ".keel" })
 * // { key: "auto_migrate", value: true, source: "default", from: "Keel's default" }
 */
export async function settingOrigin(
  store: Store,
  key: string,
  context: SettingContext,
): Promise<SettingOrigin> {
  const env = context.env ?? process.env;
  const file = join(context.keelDir, SCOPE_CONFIG_FILE);
  const fileConfig = readScopeConfig(context.keelDir);
  if (key === "database") {
    if (nonEmpty(context.db)) return origin(key, redact(context.db), "flag", "--db");
    if (nonEmpty(env.KEEL_DATABASE_URL))
      return origin(key, redact(env.KEEL_DATABASE_URL), "env", "KEEL_DATABASE_URL");
    if (fileConfig.database !== undefined)
      return origin(key, redact(fileConfig.database), context.scope, file);
    return origin(key, join(context.keelDir, "keel.db"), "default", "the scope's default file");
  }
  if (key === "auto_migrate" && fileConfig.auto_migrate !== undefined) {
    // The file is read before the database opens, so it beats the stored preference.
    return origin(key, fileConfig.auto_migrate, context.scope, file);
  }
  const entry = await getPreference(store, key);
  return entry.source === "set"
    ? origin(key, entry.value, context.scope, "config_preferences")
    : origin(key, entry.value, "default", "Keel's default");
}

function origin(key: string, value: unknown, source: SettingSource, from: string): SettingOrigin {
  return { key, value, source, from };
}

function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

/** A database URL without its password, fit to print. */
function redact(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = "***";
    return url.protocol.startsWith("postgres") ? url.toString() : value;
  } catch {
    return value;
  }
}

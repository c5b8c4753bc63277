import { statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { KeelError } from "../core/index.js";
import { readScopeConfig } from "./scope-config.js";
import type { StoreLocation } from "./types.js";

/** The folder of a scope (`./.keel` or `~/.keel`) and the database file inside it. */
export const KEEL_DIR = ".keel";
export const DATABASE_FILE = "keel.db";

/** Inputs to location resolution, highest precedence first. */
export interface ResolveLocationOptions {
  /** `--db <path|url>`: beats everything. */
  db?: string | undefined;
  /** `-g`: the global scope; otherwise `KEEL_SCOPE`, otherwise project. */
  scope?: "project" | "global" | undefined;
  /** Directory of the project scope; default `process.cwd()`. */
  cwd?: string | undefined;
  /** Environment to read `KEEL_DATABASE_URL` / `KEEL_SCOPE` from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Home directory for the global scope; default `os.homedir()`. */
  home?: string | undefined;
}

/**
 * Decides which database a command works on: `--db` beats `KEEL_DATABASE_URL`, which beats the
 * scope's config file (`.keel/config.json`, `"database"`), which beats the scope's default file
 * (project `./.keel/keel.db`, global `~/.keel/keel.db`).
 *
 * @example
 * resolveStoreLocation({ scope: "global" }); // { dialect: "sqlite", path: "/home/me/.keel/keel.db", … }
 */
export function resolveStoreLocation(options: ResolveLocationOptions = {}): StoreLocation {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const scope = options.scope ?? (env.KEEL_SCOPE === "global" ? "global" : "project");
  if (env.KEEL_SCOPE !== undefined && !["global", "project"].includes(env.KEEL_SCOPE)) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `KEEL_SCOPE must be "project" or "global", not "${env.KEEL_SCOPE}".`,
    );
  }
  const home = options.home ?? homedir();
  const keelDir =
    scope === "global"
      ? join(home, KEEL_DIR)
      : join(findProjectDir(cwd, home) ?? resolve(cwd), KEEL_DIR);
  const given = nonEmpty(options.db) ?? nonEmpty(env.KEEL_DATABASE_URL);
  if (given !== undefined) return locationOf(given, cwd, keelDir);
  const configured = readScopeConfig(keelDir).database;
  if (configured === undefined) {
    return { dialect: "sqlite", path: join(keelDir, DATABASE_FILE), keelDir };
  }
  // A path in the scope's config file is the scope's: relative to the folder holding `.keel`
  // (the project, or the home directory), wherever the command runs; and the scope's folder
  // stays its settings' (config.json, plugins) and its backups' home.
  return { ...locationOf(configured, dirname(keelDir), keelDir), keelDir };
}

/**
 * The project a directory belongs to: the nearest folder, from `cwd` upwards, holding a `.keel/`
 * folder (as git finds `.git/`), so a command run in `examples/` uses the project's database.
 * The home folder's `.keel/` is the global scope, never a project; undefined when none is found
 * (the project is then `cwd` itself, and its `.keel/` is created on first use).
 *
 * @example
 * findProjectDir("/work/app/examples"); // "/work/app" when /work/app/.keel exists
 */
export function findProjectDir(cwd: string, home: string = homedir()): string | undefined {
  const stop = resolve(home);
  for (let dir = resolve(cwd); ; ) {
    if (dir !== stop && isDirectory(join(dir, KEEL_DIR))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Interprets one `--db` value: a `postgres://` URL, `:memory:`, or a file path. */
export function locationOf(db: string, cwd: string, keelDir: string): StoreLocation {
  if (/^postgres(ql)?:\/\//i.test(db)) return { dialect: "postgres", url: db, keelDir };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(db)) {
    throw new KeelError("INVALID_ARGUMENT", `Unsupported database URL "${db}".`, {
      hint: "Use a SQLite file path or a postgres:// URL.",
    });
  }
  if (db === ":memory:") return { dialect: "sqlite", path: db, keelDir };
  const path = resolve(cwd, db.startsWith("sqlite:") ? db.slice("sqlite:".length) : db);
  // Backups of an explicitly placed file go beside it, not into an unrelated scope folder.
  return { dialect: "sqlite", path, keelDir: dirname(path) };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** A location for people: the SQLite path, or the Postgres URL with its password hidden. */
export function describeLocation(location: StoreLocation): string {
  if (location.dialect === "sqlite") return location.path;
  try {
    const url = new URL(location.url);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "<unparsable postgres URL>";
  }
}

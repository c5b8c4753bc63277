import { existsSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { KeelError } from "../core/index.js";
import {
  kernelMigrationStatus,
  type OpenStoreOptions,
  openStore,
  resolveStoreLocation,
  type Store,
  type StoreLocation,
} from "../store/index.js";
import { type OutputOptions, progress } from "./output.js";

/** Options of every verb that works on a database: where it is, and how to print. */
export interface StoreCliOptions extends OutputOptions {
  /** `--db <path|url>`: beats KEEL_DATABASE_URL, which beats `.keel/config.json`. */
  db?: string;
  /** `-g`: the global scope (`~/.keel`); KEEL_SCOPE=global does the same. */
  global?: boolean;
}

/** Adds `--db`, `-g`, `--json` and `-q` to a verb. */
export function withStoreOptions(command: Command): Command {
  return command
    .option(
      "--db <path|url>",
      "database file or postgres:// URL (beats KEEL_DATABASE_URL and the config file)",
    )
    .option("-g, --global", "use the global scope (~/.keel) instead of the project (./.keel)")
    .option("--json", "print the result as JSON")
    .option("-q, --quiet", "print nothing but errors");
}

/** `--json` also comes from KEEL_JSON=1 (or the spec's SKILL_MAP_JSON=1). */
export function outputOptions<T extends OutputOptions>(options: T): T {
  const env = process.env.KEEL_JSON === "1" || process.env.SKILL_MAP_JSON === "1";
  return { ...options, json: options.json ?? env };
}

/** The database a verb works on: `--db` > KEEL_DATABASE_URL > config file > scope default. */
export function locationFor(options: StoreCliOptions): StoreLocation {
  // The spec's SKILL_MAP_DB and SKILL_MAP_SCOPE are aliases; a flag still wins.
  const global = options.global || process.env.SKILL_MAP_SCOPE === "global";
  return resolveStoreLocation({
    db: options.db ?? nonEmpty(process.env.SKILL_MAP_DB),
    scope: global ? "global" : undefined,
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** Opens the verb's store, with migration progress on stderr (silent under --json and -q). */
export function openCliStore(
  options: StoreCliOptions,
  extra: OpenStoreOptions = {},
): Promise<Store> {
  return openStore({
    location: locationFor(options),
    onProgress: (message) => progress(options, message),
    ...extra,
  });
}

/**
 * Opens the store for a verb that only reads (`runs list`, `audit list`, …): read-only, so it
 * writes nothing — no journal-mode switch, and no `-wal`/`-shm` left beside a file Keel may not
 * write. A database that does not exist yet or has migrations pending is opened as usual
 * (created and migrated), since a read-only open could not show it.
 */
export async function openReadCliStore(options: StoreCliOptions): Promise<Store> {
  const location = locationFor(options);
  if (location.dialect === "sqlite" && (location.path === ":memory:" || !existsSync(location.path)))
    return openCliStore(options);
  let store: Store;
  try {
    store = await openCliStore(options, { readOnly: true });
  } catch {
    // Whatever the read-only open met (a file to migrate first, …), the usual open reports.
    return openCliStore(options);
  }
  try {
    if ((await kernelMigrationStatus(store)).pending.length === 0) return store;
  } catch {
    // An empty or foreign schema: the usual open says what is wrong.
  }
  await store.close();
  return openCliStore(options);
}

/**
 * Asks before a destructive step unless `--force`. Without a terminal to ask on (or under
 * `--json`) it refuses rather than guess.
 */
export async function confirm(
  options: OutputOptions & { force?: boolean },
  question: string,
): Promise<void> {
  if (options.force) return;
  if (options.json || !process.stdin.isTTY) {
    throw new KeelError("CONFIRMATION_REQUIRED", `${question} Refusing without confirmation.`, {
      hint: "Pass --force to proceed without a prompt.",
    });
  }
  const readline = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await readline.question(`${question} Type "yes" to continue: `);
    if (answer.trim().toLowerCase() !== "yes") {
      throw new KeelError("ABORTED", "Cancelled; nothing was changed.");
    }
  } finally {
    readline.close();
  }
}

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compareCodePoints, KeelError } from "../../core/index.js";
import type { StoreDialectName } from "../types.js";
import type { MigrationFile } from "./types.js";

/** `NNN_snake_case.sql`: three digits, lowercase words joined by `_` (kernel and plugins). */
export const MIGRATION_NAME = /^(\d{3})_([a-z0-9]+(?:_[a-z0-9]+)*)\.sql$/;

/**
 * The folder holding the kernel's migrations for a dialect. Resolved from this module's URL so it
 * works from `src/` (tsx, vitest) and from `dist/` (the build copies `.sql` files beside the JS).
 */
export function kernelMigrationsDir(dialect: StoreDialectName): string {
  return fileURLToPath(new URL(`../migrations/${dialect}/`, import.meta.url));
}

const cache = new Map<string, readonly MigrationFile[]>();

/**
 * Every `NNN_snake_case.sql` in `dir`, in version order. Versions must start at 001 and have no
 * gaps or duplicates; any other `.sql` file name is refused (it would otherwise be silently
 * skipped). Read once per process and folder.
 */
export function loadMigrationFiles(dir: string): readonly MigrationFile[] {
  const cached = cache.get(dir);
  if (cached) return cached;
  if (!existsSync(dir)) {
    throw new KeelError("MIGRATION_FAILED", `The migrations folder ${dir} does not exist.`, {
      details: { dir },
      hint: "Reinstall Keel, or run `npm run build` (it copies the .sql migrations into dist/).",
    });
  }
  const files: MigrationFile[] = [];
  for (const entry of readdirSync(dir).sort(compareCodePoints)) {
    if (!entry.endsWith(".sql")) continue;
    const match = MIGRATION_NAME.exec(entry);
    if (!match) {
      throw new KeelError(
        "MIGRATION_FAILED",
        `Migration file name "${entry}" is not NNN_snake_case.sql.`,
        {
          details: { dir, file: entry },
          hint: "Rename it, e.g. 002_add_checkpoints.sql (three digits, lowercase words joined by _).",
        },
      );
    }
    const file = join(dir, entry);
    files.push({
      version: Number(match[1]),
      name: entry.slice(0, -".sql".length),
      description: (match[2] ?? "").replace(/_/g, " "),
      file,
      sql: readFileSync(file, "utf8"),
    });
  }
  files.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new KeelError(
        "MIGRATION_FAILED",
        `Migrations in ${dir} must be numbered 001, 002, … without gaps or duplicates; found ${migration.name} at position ${index + 1}.`,
        {
          details: { dir, file: migration.name },
          hint: "Renumber the newest file to the next free number.",
        },
      );
    }
  });
  cache.set(dir, files);
  return files;
}

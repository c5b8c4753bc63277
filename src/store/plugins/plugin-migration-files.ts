import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { KeelError } from "../../core/index.js";
import { MIGRATION_NAME } from "../migrate/migration-files.js";
import type { MigrationFile } from "../migrate/types.js";

/** A plugin's migration files, as its manifest lists them, numbered 001… without gaps. */
export function loadPluginMigrations(dir: string, listed: readonly string[]): MigrationFile[] {
  const files = listed.map((relative) => {
    const file = join(dir, relative);
    const name = basename(file);
    const match = MIGRATION_NAME.exec(name);
    if (!match) {
      throw new KeelError(
        "PLUGIN_MANIFEST_INVALID",
        `Plugin migration "${relative}" is not named NNN_snake_case.sql.`,
      );
    }
    if (!existsSync(file)) {
      throw new KeelError(
        "PLUGIN_MANIFEST_INVALID",
        `Plugin migration "${relative}" does not exist in ${dir}.`,
      );
    }
    return {
      version: Number(match[1]),
      name: name.slice(0, -4),
      description: (match[2] ?? "").replace(/_/g, " "),
      file,
      sql: readFileSync(file, "utf8"),
    };
  });
  files.sort((a, b) => a.version - b.version);
  files.forEach((file, index) => {
    if (file.version !== index + 1) {
      throw new KeelError(
        "PLUGIN_MANIFEST_INVALID",
        `Plugin migrations must be numbered 001, 002, … without gaps; found ${file.name}.`,
      );
    }
  });
  return files;
}

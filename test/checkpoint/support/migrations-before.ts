import { cpSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { kernelMigrationsDir } from "../../../src/store/index.js";

/**
 * A copy (under `dir`) of SQLite's kernel migrations before the one whose file name ends with
 * `suffix` (`_checkpoint_rowid_tables.sql`): open a store with it to write rows in the layout a
 * migration changes, then reopen without it to run that migration on them. Found by name, so a
 * test keeps working whatever number its migration has.
 */
export function sqliteMigrationsBefore(dir: string, suffix: string): string {
  const target = join(dir, `before${suffix.replace(/\.sql$/, "")}`);
  cpSync(kernelMigrationsDir("sqlite"), target, { recursive: true });
  const files = readdirSync(target);
  const it = files.find((file) => file.endsWith(suffix));
  if (!it) throw new Error(`no kernel migration ends with ${suffix}`);
  for (const file of files) if (file >= it) rmSync(join(target, file));
  return target;
}

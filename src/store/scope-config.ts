import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { KeelError } from "../core/index.js";

/** The scope's config file, `.keel/config.json`: settings needed before the database opens. */
export const SCOPE_CONFIG_FILE = "config.json";

const ScopeConfig = z
  .object({
    /** A SQLite path (relative to the project) or a postgres:// URL. */
    database: z.string().min(1).optional(),
    /** false: never migrate on open; run `keel db migrate` by hand. */
    auto_migrate: z.boolean().optional(),
  })
  .passthrough();

export type ScopeConfig = z.infer<typeof ScopeConfig>;

/** Reads `<keelDir>/config.json`; absent means empty. A malformed file is an error naming each problem. */
export function readScopeConfig(keelDir: string): ScopeConfig {
  const file = join(keelDir, SCOPE_CONFIG_FILE);
  if (!existsSync(file)) return {};
  return readJsonConfigFile(file, ScopeConfig, {
    syntax: "Fix the file or delete it (it only holds `database` and `auto_migrate`).",
    shape: "`database` is a string, `auto_migrate` a boolean.",
  });
}

/**
 * A JSON config file parsed by `schema`: CONFIG_INVALID when it is not JSON (hint `hints.syntax`)
 * or breaks the schema (every problem as a JSON Pointer, hint `hints.shape`).
 *
 * @example
 * readJsonConfigFile(".keel/catalog.json", CatalogConfig, { syntax: "Fix the JSON.", shape: "See docs." })
 */
export function readJsonConfigFile<T>(
  file: string,
  schema: z.ZodType<T>,
  hints: { syntax: string; shape: string },
): T {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new KeelError(
      "CONFIG_INVALID",
      `${file} is not valid JSON: ${(error as Error).message}.`,
      {
        cause: error,
        details: { file },
        hint: hints.syntax,
      },
    );
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => ({
      path: `/${issue.path.join("/")}`,
      message: issue.message,
    }));
    throw new KeelError(
      "CONFIG_INVALID",
      `${file} is invalid: ${problems.map((p) => `${p.path} ${p.message}`).join("; ")}.`,
      { details: { file, problems }, hint: hints.shape },
    );
  }
  return parsed.data;
}

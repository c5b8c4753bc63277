import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { PLUGIN_SETTINGS_FILES, readJsonConfigFile } from "../store/index.js";

/**
 * The catalog's settings (the spec's project config): `.keel/catalog.json`, or the spec's
 * `.skill-map.json` at the scope root. Unknown top-level keys are kept for other modules (jobs,
 * history); the `scan` block is closed.
 */
export const CatalogConfig = z
  .object({
    schemaVersion: z.literal(1).optional(),
    adapters: z.array(z.string()).optional(),
    roots: z.array(z.string()).optional(),
    ignore: z.array(z.string()).optional(),
    scan: z
      .object({
        tokenize: z.boolean().optional(),
        strict: z.boolean().optional(),
        followSymlinks: z.boolean().optional(),
      })
      .strict()
      .optional(),
    plugins: z
      .record(
        z.string(),
        z
          .object({
            enabled: z.boolean().optional(),
            config: z.record(z.string(), z.unknown()).optional(),
          })
          .strict(),
      )
      .optional(),
  })
  .passthrough();

export type CatalogConfig = z.infer<typeof CatalogConfig>;

/**
 * Where the catalog config is looked for, first found wins (relative to the scope root). The
 * store reads its `plugins` map from the same files (readPluginFileSettings), so every module
 * sees the file's plugin switches.
 */
export const CATALOG_CONFIG_FILES: readonly string[] = PLUGIN_SETTINGS_FILES;

/** Reads the scope's catalog config; absent means defaults. Every problem is reported at once. */
export function readCatalogConfig(root: string): CatalogConfig {
  for (const name of CATALOG_CONFIG_FILES) {
    const file = join(root, name);
    if (!existsSync(file)) continue;
    return readJsonConfigFile(file, CatalogConfig, {
      syntax: "Fix the JSON, or delete the file to scan with the defaults.",
      shape: 'See docs/catalog.md, "Configuration", for the keys.',
    });
  }
  return {};
}

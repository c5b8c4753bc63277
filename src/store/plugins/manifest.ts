import semver from "semver";
import { z } from "zod";

/** The storage part of `plugin.json` (plugins-registry.schema.json): exactly one mode. */
export const PluginStorage = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("kv") }).strict(),
  z
    .object({
      mode: z.literal("dedicated"),
      tables: z.array(z.string().regex(/^[a-z][a-z0-9_]*$/, "table names are snake_case")).min(1),
      migrations: z.array(z.string().min(1)).min(1),
    })
    .strict(),
]);

/**
 * The skill-map spec version whose plugin contract Keel implements (seed 004's reference,
 * `shared/reference/skill-map-spec-0.1.0`). A plugin's `specCompat` range must admit it.
 */
export const SPEC_VERSION = "0.1.0";

// ajv-formats' `uri`: a scheme, then anything URL-shaped.
const uri = z.string().refine((text) => URL.canParse(text), "must be a URI");

/**
 * `plugin.json`: the spec's `PluginManifest` (plugins-registry.schema.json: kebab-case `id`,
 * `version`, `specCompat`, `extensions`, `storage`, no unknown keys), with two readings of Keel's
 * own, so that one manifest serves every module that reads plugins (docs/catalog.md):
 * - seed 000's `api_version` and `packs` (governance packs, src/ir) are allowed;
 * - `extensions` may be absent (a plugin that only brings storage or packs), and `specCompat`
 *   then too; a plugin that lists extensions must declare `specCompat`, as the spec says.
 * test/catalog/plugins.test.ts checks that every manifest the spec's schema refuses is refused,
 * these cases aside.
 *
 * @example
 * PluginManifest.parse({ id: "pins", version: "1.0.0", storage: { mode: "kv" } });
 */
export const PluginManifest = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, "plugin ids are kebab-case"),
    version: z.string(),
    /** Semver range of the spec the plugin targets (`^0.1.0`). */
    specCompat: z
      .string()
      .refine((range) => semver.validRange(range) !== null, "specCompat is not a semver range")
      .optional(),
    description: z.string().optional(),
    /** Extension modules, relative to the plugin folder. */
    extensions: z.array(z.string()).min(1).optional(),
    storage: PluginStorage.optional(),
    author: z.string().optional(),
    license: z.string().optional(),
    homepage: uri.optional(),
    repository: uri.optional(),
    /** Seed 000: the plugin API version its packs were written for. */
    api_version: z.string().optional(),
    /** Seed 000: governance packs, `{ "<pack id>": "<file>.clp" }`. */
    packs: z.record(z.string(), z.string()).optional(),
  })
  .strict()
  .superRefine((manifest, context) => {
    if (manifest.extensions !== undefined && manifest.specCompat === undefined) {
      context.addIssue({
        code: "custom",
        path: ["specCompat"],
        message: "a plugin that lists extensions must declare specCompat (e.g. ^0.1.0)",
      });
    }
  });

export type PluginManifest = z.infer<typeof PluginManifest>;

/**
 * The problems of a parsed `plugin.json`, as `"<JSON Pointer>: <message>"` lines (empty when it
 * is a valid manifest).
 *
 * @example
 * manifestProblems({ id: "wiki", version: "1.0.0", extensions: ["a.mjs"] });
 * // ["/specCompat: a plugin that lists extensions must declare specCompat (e.g. ^0.1.0)"]
 */
export function manifestProblems(manifest: unknown): string[] {
  const parsed = PluginManifest.safeParse(manifest);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => `/${issue.path.join("/")}: ${issue.message}`);
}

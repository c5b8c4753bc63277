import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => void;

/** A plugin's `plugin.json` (the spec's `PluginManifest`, plugins-registry.schema.json). */
export interface PluginManifest {
  /** Kebab-case, unique among the scope's plugins. */
  readonly id: string;
  readonly version: string;
  /** The semver range of spec versions the plugin works with (`^0.1.0`). */
  readonly specCompat: string;
  readonly description?: string;
  /** Extension modules, relative to the plugin folder. */
  readonly extensions: readonly string[];
  readonly storage?: Readonly<Record<string, unknown>>;
  readonly author?: string;
  readonly license?: string;
  readonly homepage?: string;
  readonly repository?: string;
}

/**
 * The spec's `$defs/PluginManifest`, written out (test/catalog/plugins.test.ts checks that it
 * accepts and refuses what the spec package's own schema does).
 */
export const PLUGIN_MANIFEST_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "keel:catalog/plugin-manifest",
  type: "object",
  required: ["id", "version", "specCompat", "extensions"],
  additionalProperties: false,
  properties: {
    id: { type: "string", pattern: "^[a-z][a-z0-9]*(-[a-z0-9]+)*$" },
    version: { type: "string" },
    specCompat: { type: "string" },
    description: { type: "string" },
    extensions: { type: "array", minItems: 1, items: { type: "string" } },
    storage: {
      type: "object",
      oneOf: [
        {
          required: ["mode"],
          additionalProperties: false,
          properties: { mode: { const: "kv" } },
        },
        {
          required: ["mode", "tables", "migrations"],
          additionalProperties: false,
          properties: {
            mode: { const: "dedicated" },
            tables: { type: "array", minItems: 1, items: { type: "string" } },
            migrations: { type: "array", minItems: 1, items: { type: "string" } },
          },
        },
      ],
    },
    author: { type: "string" },
    license: { type: "string" },
    homepage: { type: "string", format: "uri" },
    repository: { type: "string", format: "uri" },
  },
} as const;

let validate: ValidateFunction | undefined;

/**
 * The problems of a parsed `plugin.json` against the spec's manifest schema, as
 * `"<pointer> <message>"` lines (empty when valid).
 *
 * @example
 * manifestProblems({ id: "wiki", version: "1.0.0" });
 * // ["/ must have required property 'specCompat'", …]
 */
export function manifestProblems(manifest: unknown): string[] {
  if (!validate) {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    validate = ajv.compile(PLUGIN_MANIFEST_SCHEMA);
  }
  if (validate(manifest)) return [];
  return (validate.errors ?? []).map(
    (error: ErrorObject) => `${error.instancePath || "/"} ${error.message ?? error.keyword}`,
  );
}

import { KeelError } from "../core/index.js";
import type { PackMount } from "./models/index.js";
import type { Problem } from "./problems.js";

/** The MAJOR.MINOR.PATCH IR version this build understands; any `1.x.y` document loads. */
export const IR_VERSION = "1.1.0";

/** The facts schema version Keel's rule engine provides to governance packs. */
export const FACTS_VERSION = "1.0";

/** The plugin API version Keel provides to governance packs and plugins. */
export const PLUGIN_API_VERSION = "1";

const VERSION_PATTERN = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

/**
 * Splits `MAJOR.MINOR.PATCH` into three integers; anything else throws `IR_VERSION_INVALID`.
 *
 * @example
 * parseVersion("1.2.3") // [1, 2, 3]
 */
export function parseVersion(text: string): [number, number, number] {
  const match = VERSION_PATTERN.exec(text);
  if (!match) {
    throw new KeelError("IR_VERSION_INVALID", `"${text}" is not a MAJOR.MINOR.PATCH version.`, {
      details: { version: text },
      hint: `Write the version as three numbers, e.g. "${IR_VERSION}".`,
    });
  }
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/**
 * True when `version` is IR 1.1.0 or later (Stargraph 0.8's IR): template facts mirror the state,
 * and a rule condition is checked when the run builds its rules, as Stargraph does. False for a
 * malformed version (validation reports it).
 *
 * @example
 * isAtLeast11("1.1.0") // true
 */
export function isAtLeast11(version: string): boolean {
  if (!VERSION_PATTERN.test(version)) return false;
  const [major, minor] = parseVersion(version);
  return major > 1 || (major === 1 && minor >= 1);
}

/**
 * Checks a document's `ir_version` against {@link IR_VERSION}: returns one `version_mismatch`
 * problem when the major differs (a refusal to interpret, not a warning), one `version_invalid`
 * problem when the string is malformed, and nothing otherwise. A missing or non-string
 * `ir_version` is the structural stage's business and is skipped here.
 */
export function versionProblems(doc: { ir_version?: unknown }): Problem[] {
  const version = doc.ir_version;
  if (typeof version !== "string") return [];
  const path = "/ir_version";
  if (!VERSION_PATTERN.test(version)) {
    return [
      {
        code: "version_invalid",
        path,
        message: `ir_version "${version}" is not a MAJOR.MINOR.PATCH version.`,
        expected: "MAJOR.MINOR.PATCH",
        actual: JSON.stringify(version),
        hint: `Write the version as three numbers, e.g. "${IR_VERSION}".`,
      },
    ];
  }
  const [major] = parseVersion(version);
  const [ours] = parseVersion(IR_VERSION);
  if (major === ours) return [];
  return [
    {
      code: "version_mismatch",
      path,
      message: `IR version ${version} has major ${major}; this build understands ${ours}.x (${IR_VERSION}).`,
      expected: `${ours}.x.y`,
      actual: JSON.stringify(version),
      hint:
        major > ours
          ? "The document was written for a newer Keel: upgrade Keel to load it."
          : `Migrate the document to IR ${IR_VERSION} before loading it.`,
    },
  ];
}

/** A governance pack's `requires` does not match what this build provides. */
/**
 * The major-version gate alone: a `version_mismatch` problem when the document's major differs
 * from this build's, else none. A missing, non-string or malformed `ir_version` is not this
 * check's business (the structure stage reports it), so it returns [] for those, as Stargraph's
 * `check_version` does.
 *
 * @example
 * checkVersion({ ir_version: "2.0.0" })[0]?.code // "version_mismatch"
 * checkVersion({ ir_version: "banana" }) // []
 */
export function checkVersion(doc: { ir_version?: unknown }): Problem[] {
  const version = doc.ir_version;
  if (typeof version !== "string" || !VERSION_PATTERN.test(version)) return [];
  return versionProblems(doc);
}

export class PackCompatError extends KeelError {
  constructor(message: string, details: Record<string, unknown>, hint: string) {
    super("PACK_INCOMPATIBLE", message, { details, hint });
  }
}

/** What the loading side provides; defaults to this build's versions. */
export interface PackCompatOptions {
  factsVersion?: string;
  apiVersion?: string;
}

/**
 * The load-time gate for `PackMount.requires`: each declared requirement must equal what is
 * provided (pinned-string equality, as in the seed; semver ranges are not interpreted).
 * Throws {@link PackCompatError} on the first mismatch, so drift is never silent.
 *
 * @example
 * checkPackCompat({ id: "pack.x", version: null, requires: { stargraph_facts_version: "1.0", api_version: "1" } });
 */
export function checkPackCompat(pack: PackMount, options: PackCompatOptions = {}): void {
  const requires = pack.requires;
  if (!requires) return;
  const factsVersion = options.factsVersion ?? FACTS_VERSION;
  const apiVersion = options.apiVersion ?? PLUGIN_API_VERSION;
  const wanted = requires.stargraph_facts_version;
  if (wanted !== null && wanted !== undefined && wanted !== factsVersion) {
    throw new PackCompatError(
      `Pack "${pack.id}" requires facts version ${wanted}; this build provides ${factsVersion}.`,
      { pack: pack.id, field: "stargraph_facts_version", required: wanted, provided: factsVersion },
      "Mount a pack version written for this facts version, or upgrade Keel.",
    );
  }
  const wantedApi = requires.api_version;
  if (wantedApi !== null && wantedApi !== undefined && wantedApi !== apiVersion) {
    throw new PackCompatError(
      `Pack "${pack.id}" requires plugin API ${wantedApi}; this build provides ${apiVersion}.`,
      { pack: pack.id, field: "api_version", required: wantedApi, provided: apiVersion },
      "Mount a pack version written for this plugin API, or upgrade Keel.",
    );
  }
}

import { blake2b128Hex } from "../core/index.js";
import { pythonCanonicalJson } from "./python-json.js";

/**
 * The content hash of a fact: BLAKE2b with a 16-byte digest (32 hex characters) over the fact's
 * canonical JSON, byte-identical to the original system's
 * `blake2b(json.dumps(fact, sort_keys=True, separators=(",", ":")).encode(), digest_size=16)`,
 * so fact stores written by either side agree. See `pythonCanonicalJson` for the one case
 * JavaScript cannot express (Python floats with integral values such as `1.0`).
 *
 * @example
 * factContentHash({ severity: 4, message: "disk full" }) // 32 hex characters
 */
export function factContentHash(fact: unknown): string {
  return blake2b128Hex(pythonCanonicalJson(fact));
}

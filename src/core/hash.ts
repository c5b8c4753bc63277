import * as crypto from "node:crypto";
import { blake2b } from "@noble/hashes/blake2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { canonicalJson } from "./canonical-json.js";

// `crypto.hash` (Node 20.12+, 21.7+) hashes in one call without a Hash object: about half the
// time of createHash for the short texts Keel hashes on every ledgered tool call.
const oneShot: typeof crypto.hash | undefined =
  typeof crypto.hash === "function" ? crypto.hash : undefined;

/** Hex sha256 of a string (UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return oneShot
    ? oneShot("sha256", data, "hex")
    : crypto.createHash("sha256").update(data).digest("hex");
}

/** Hex BLAKE2b with a 16-byte digest (32 hex characters). */
export function blake2b128Hex(data: string | Uint8Array): string {
  const bytes = typeof data === "string" ? utf8ToBytes(data) : data;
  return bytesToHex(blake2b(bytes, { dkLen: 16 }));
}

/** Hex sha256 of a value's canonical JSON: equal values give equal hashes. */
export function hashValue(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

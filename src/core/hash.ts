import { createHash } from "node:crypto";
import { blake2b } from "@noble/hashes/blake2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { canonicalJson } from "./canonical-json.js";

/** Hex sha256 of a string (UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
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

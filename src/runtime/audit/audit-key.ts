import { sha256Hex } from "../../core/index.js";

/**
 * The audit id an idempotency key stands for: a UUID (version 8, "custom") made from the key's
 * sha256, so the same key always names the same event and the log's unique id refuses a second.
 *
 * @example
 * keyedAuditId("ir.transition|thread-1|a:0192…|0|…"); // "5d41402a-bc4b-8a76-b971-9d911017c592"
 */
export function keyedAuditId(key: string): string {
  const hex = sha256Hex(key);
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

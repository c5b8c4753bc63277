/**
 * The migration shim for tool specs written for foundation v0.1, where `side_effects` was a
 * boolean: `true` becomes `"write"`, `false` becomes `"none"`. Run it on the raw data before
 * validating a `ToolSpec`. The first coercion in a process emits one `DeprecationWarning`.
 *
 * @example
 * coerceLegacyToolSpec({ name: "send", side_effects: true }).side_effects // "write"
 */
export function coerceLegacyToolSpec<T>(data: T): T {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return data;
  const record = data as Record<string, unknown>;
  const flag = record.side_effects;
  if (typeof flag !== "boolean") return data;
  warnOnce();
  return { ...record, side_effects: flag ? "write" : "none" } as T;
}

let warned = false;

function warnOnce(): void {
  if (warned) return;
  warned = true;
  process.emitWarning(
    'ToolSpec.side_effects as a boolean is deprecated: write "none", "read", "write" or "external" (true was read as "write", false as "none").',
    { type: "DeprecationWarning", code: "KEEL_IR_LEGACY_SIDE_EFFECTS" },
  );
}

import type { RunConfig } from "../types.js";

/** Substrings of `configurable` keys never copied into trace metadata (credentials). */
const OMITTED = ["key", "token", "secret", "password", "auth"];

function omitted(key: string, value: unknown): boolean {
  if (key.startsWith("__")) return true;
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean")
    return true;
  const lower = key.toLowerCase();
  return OMITTED.some((part) => lower.includes(part));
}

/**
 * What LangGraph.js adds to the metadata of the runs a LangSmith tracer records: the run's
 * `configurable` values that are plain scalars, minus internal keys, keys that look like
 * credentials, and keys `context` mirrors with the same value (those are set to undefined, so a
 * mirrored context value never reaches a trace). Undefined when there is nothing to add.
 *
 * @example
 * tracerMetadata({ configurable: { tenantId: "t1", api_key: "…" } }); // { tenantId: "t1" }
 */
export function tracerMetadata(config: RunConfig): Record<string, unknown> | undefined {
  const configurable = config.configurable as Record<string, unknown> | undefined;
  if (!configurable) return undefined;
  const context = (config as { context?: Record<string, unknown> }).context;
  const metadata: Record<string, unknown> = {};
  let any = false;
  for (const [key, value] of Object.entries(configurable)) {
    if (context != null && Object.hasOwn(context, key) && Object.is(context[key], value)) {
      if (!key.startsWith("__")) {
        metadata[key] = undefined;
        any = true;
      }
      continue;
    }
    if (omitted(key, value)) continue;
    metadata[key] = value;
    any = true;
  }
  return any ? metadata : undefined;
}

/** Turns a request into what may be stored and hashed: secrets replaced by a marker. */
export type Redactor = (request: Record<string, unknown>) => Record<string, unknown>;

/** The marker that replaces a redacted value. */
export const REDACTED = "[REDACTED]";

const SECRET_KEY =
  /pass(word)?|secret|token|api[-_]?key|authori[sz]ation|credential|private[-_]?key|cookie/i;

/**
 * The default redactor: replaces the value of every key that names a secret (password, token,
 * api_key, authorization, …), at any depth. The request hash is taken over the redacted form, so
 * equal requests hash equally without the secret ever reaching the database.
 */
export const redactSecrets: Redactor = (request) => redactValue(request) as Record<string, unknown>;

/** `redactSecrets` of any value (an object's secret-named keys replaced at any depth). */
export function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    out[key] = SECRET_KEY.test(key) ? REDACTED : redactValue(inner);
  }
  return out;
}

import { z } from "zod";

/**
 * Field types shared by the seed-003 contracts. Pydantic's `UUID`, `datetime` and `dict` become
 * the JSON shapes they serialise to: a UUID string, an ISO 8601 timestamp with an offset, and a
 * JSON object.
 */

/** A UUID string (any RFC 9562 version; Keel makes UUIDv7). */
export const Uuid = z.uuid({
  error: "a UUID such as 0192f5e0-7c1a-7000-8000-000000000000",
});

/**
 * An ISO 8601 timestamp with an explicit offset (`Z` or `±hh:mm`). Naive timestamps are refused:
 * the seed's datetimes are UTC, and a timestamp without an offset cannot be placed on a timeline.
 */
export const Timestamp = z.iso.datetime({
  offset: true,
  error: "an ISO 8601 timestamp with an offset, such as 2026-01-01T12:00:00.000Z",
});

/** A JSON object (Pydantic `dict`): string keys, any JSON values. */
export const JsonObject = z.record(z.string(), z.unknown());

/** A lowercase hex sha256 digest, the form of every `_hash` field. */
export const Sha256 = z
  .string()
  .regex(/^[0-9a-f]{64}$/, { error: "a lowercase hex sha256 digest (64 characters)" });

/** A non-empty string. */
export const NonEmpty = z.string().min(1);

/** A count of milliseconds or seconds: a non-negative integer. */
export const NonNegativeInt = z.int().min(0);

/** An IANA time zone name such as `Europe/Berlin` or `UTC`. */
export const IanaTimezone = z.string().refine(isIanaTimezone, {
  error: "Not an IANA time zone name.",
  params: { expected: "IANA time zone name", hint: "Use a name from the tz database, e.g. UTC." },
});

/** A BCP 47 language tag such as `en-GB`. */
export const Bcp47Locale = z.string().refine(isBcp47, {
  error: "Not a BCP 47 language tag.",
  params: { expected: "BCP 47 language tag", hint: "Use a tag such as en, en-GB or pt-BR." },
});

/**
 * A dotted event type: lowercase segments joined by dots, at least two (`tool_call.succeeded`,
 * `gate.approved`), so that types group by their first segment in searches.
 */
export const DottedType = z.string().regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/, {
  error: "a dotted lowercase type such as tool_call.succeeded",
});

/**
 * The seed references `ErrorDetail` without defining it. Keel's shape: a stable `code`, a
 * `message` that says what happened, whether retrying may help, and structured `details`.
 */
export const ErrorDetail = z.strictObject({
  code: NonEmpty,
  message: NonEmpty,
  retryable: z.boolean().default(false),
  details: JsonObject.default({}),
});
export type ErrorDetail = z.output<typeof ErrorDetail>;

function isIanaTimezone(value: string): boolean {
  if (value.length === 0) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

function isBcp47(value: string): boolean {
  if (value.length === 0) return false;
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

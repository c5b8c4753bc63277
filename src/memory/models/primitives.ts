import { z } from "zod";

/**
 * Field types of seed 001. Strings are trimmed before their length is checked (the reference
 * strips whitespace, so `"  db  "` is a two-character target); `StrictStr` needs 1 character,
 * `TargetStr` 3 and `RationaleStr` 10.
 */
export const StrictStr = z.string().trim().min(1);
export const TargetStr = z.string().trim().min(3);
export const RationaleStr = z.string().trim().min(10);

/** A namespace: a logical partition of the memory (`default` unless given). */
export const Namespace = z.string().trim().min(1).default("default");

/** A list of strings, empty by default. */
export const StringList = z.array(z.string()).default([]);

/** Ids of episodic events (integers), empty by default. */
export const EventIdList = z.array(z.int().min(0)).default([]);

/**
 * A point in time on the wire: ISO 8601. A timestamp without an offset is read as UTC (the
 * reference misreads such naive values as carrying an offset; Keel does not). Parsed values are
 * written back as `…Z` strings.
 */
export const WireTime = z.union([z.string(), z.date()]).transform((value, ctx) => {
  const ms = value instanceof Date ? value.getTime() : parseWireTime(value);
  if (ms === null) {
    ctx.addIssue({
      code: "custom",
      message: "Not an ISO 8601 timestamp.",
      params: {
        expected: "an ISO 8601 timestamp such as 2026-03-01T12:00:00Z",
        hint: "Write the time as YYYY-MM-DDTHH:MM:SS with an optional offset (UTC without one).",
      },
    });
    return z.NEVER;
  }
  return new Date(ms).toISOString();
});

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Unix milliseconds of an ISO 8601 timestamp, naive ones as UTC; null when it is not one.
 *
 * @example
 * parseWireTime("2026-03-01T12:00:00") // 1772366400000
 */
export function parseWireTime(text: string): number | null {
  const match = ISO.exec(text.trim());
  if (!match) return null;
  const normalised = text.trim().replace(" ", "T");
  const ms = Date.parse(
    match[1] === undefined
      ? `${normalised}${normalised.length === 10 ? "T00:00:00" : ""}Z`
      : normalised,
  );
  return Number.isNaN(ms) ? null : ms;
}

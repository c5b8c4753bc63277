import { IrValidationError } from "./errors.js";
import { hintFor } from "./problems.js";

/**
 * Interrupt timeouts as text: the forms Pydantic (speedate) accepts for a `timedelta`, without
 * a minus sign (a wait bound cannot be negative):
 *
 * - ISO 8601 `P[nY][nM][nW][nD][T[nH][nM][nS]]`, as Pydantic writes a timedelta (`PT15M`).
 *   Like Pydantic, a year is 365 days and a month 30 days (a timedelta has no calendar).
 * - `HH:MM[:SS[.ffffff]]` (hours 00–23).
 * - `D days[, HH:MM[:SS[.ffffff]]]` (`d`, `day` or `days`, any case; the comma and space optional).
 *
 * An optional leading `+` is allowed. Fractions are allowed on any ISO quantity (Pydantic allows
 * one only on the last: Keel is more lenient there, never stricter).
 */
const NUM = String.raw`(\d+(?:\.\d+)?)`;
const ISO = String.raw`P(?=\d|T\d)(?:${NUM}Y)?(?:${NUM}M)?(?:${NUM}W)?(?:${NUM}D)?(?:T(?=\d)(?:${NUM}H)?(?:${NUM}M)?(?:${NUM}S)?)?`;
const CLOCK = String.raw`([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d(?:\.\d+)?))?`;
const DAYS = String.raw`(\d+) ?[dD](?:[aA][yY][sS]?)?(?:,? ?${CLOCK})?`;

/** The regular expression of a timeout string (also the JSON Schema `pattern`). */
export const DURATION_PATTERN = String.raw`^\+?(?:${ISO}|${CLOCK}|${DAYS})$`;
const DURATION = new RegExp(DURATION_PATTERN);

/** What the timeout forms are, in words (for problems and the JSON Schema). */
export const DURATION_FORMS =
  "a non-negative duration: seconds (a number), ISO 8601 (PT30S; P1Y = 365 days, P1M = 30 days), HH:MM:SS, or D days, HH:MM:SS";

// Seconds per unit, in the order of the pattern's groups.
const UNITS = [
  365 * 86400, // Y
  30 * 86400, // M
  7 * 86400, // W
  86400, // D
  3600, // H
  60, // M
  1, // S
  3600, // HH
  60, // MM
  1, // SS
  86400, // D days
  3600, // HH
  60, // MM
  1, // SS
];

/**
 * The seconds a timeout string stands for, or null when it is not one of the forms above.
 *
 * @example
 * durationSeconds("PT15M") // 900
 * durationSeconds("P1M") // 2592000 (30 days, as Pydantic)
 * durationSeconds("1 day, 01:00:00") // 90000
 */
export function durationSeconds(text: string): number | null {
  const match = DURATION.exec(text);
  if (!match) return null;
  let seconds = 0;
  for (let group = 1; group < match.length; group++) {
    const value = match[group];
    if (value !== undefined) seconds += Number(value) * (UNITS[group - 1] ?? 0);
  }
  return seconds;
}

/**
 * An interrupt timeout in milliseconds: `null` for none, a number of seconds, or a duration
 * string (see {@link durationSeconds}). Validation refuses anything else; a value that reaches
 * here unparsed (a document that skipped validation) throws `IR_INVALID` instead of silently
 * never timing out.
 */
export function timeoutMillis(timeout: number | string | null): number | null {
  if (timeout === null) return null;
  const seconds = typeof timeout === "number" ? timeout : durationSeconds(timeout);
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) {
    throw new IrValidationError("The interrupt's timeout", [
      {
        code: "string_pattern_mismatch",
        path: "/timeout",
        message: `Timeout ${JSON.stringify(timeout)} is not ${DURATION_FORMS}.`,
        expected: DURATION_FORMS,
        actual: JSON.stringify(timeout),
        hint: hintFor("string_pattern_mismatch"),
      },
    ]);
  }
  return seconds * 1000;
}

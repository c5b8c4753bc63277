import { randomBytes } from "node:crypto";

function stamp(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}-${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}`;
}

function suffix(): string {
  return randomBytes(2).toString("hex");
}

/**
 * A job id as job.schema.json spells it: `d-YYYYMMDD-HHMMSS-XXXX` (UTC, 16 random bits). Two
 * submits in one second can draw the same id; the insert retries with a fresh one.
 */
export function newJobId(now: number): string {
  return `d-${stamp(now)}-${suffix()}`;
}

/**
 * An execution id, `e-YYYYMMDD-HHMMSS-XXXX-<16 hex>`. The spec gives the format's start; the
 * 64-bit tail keeps it unique without a retry, since execution rows are written by many workers
 * inside their record transaction.
 */
export function newExecutionId(now: number): string {
  return `e-${stamp(now)}-${suffix()}-${randomBytes(8).toString("hex")}`;
}

/** A run id, `r-YYYYMMDD-HHMMSS-XXXX` (job-events.md); `external` gives `r-ext-…` for `keel record`. */
export function newRunId(now: number, external = false): string {
  return `r-${external ? "ext-" : ""}${stamp(now)}-${suffix()}`;
}

/** A job's nonce: 256 bits from the CSPRNG as hex (the spec asks for at least 128). */
export function newNonce(): string {
  return randomBytes(32).toString("hex");
}

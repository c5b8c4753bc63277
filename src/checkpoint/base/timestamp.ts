let lastMs = Number.NaN;
let lastIso = "";

/**
 * The current time as an ISO 8601 string (a checkpoint's `ts`). `toISOString` costs about a
 * microsecond, and a fast graph makes many checkpoints per millisecond: the text of the current
 * millisecond is made once.
 */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

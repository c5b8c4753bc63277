let lastMs = Number.NaN;
let lastIso = "";
/** The second `secondText` is the text of ("2026-11-28T12:11:36."), or NaN when none is. */
let lastSecond = Number.NaN;
let secondText = "";
/** "000Z" … "999Z": the millisecond part of a timestamp. */
const MILLIS = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(3, "0")}Z`);

/**
 * The current time as an ISO 8601 string (a checkpoint's `ts`). `toISOString` costs about a
 * microsecond (it formats through `snprintf`), and checkpoints come many per second: its text is
 * made once a second, each millisecond adds its three digits, and a millisecond's text is kept.
 */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    const second = Math.floor(ms / 1000);
    if (second !== lastSecond) {
      const text = new Date(ms).toISOString();
      // Years outside 0–9999 have a longer, signed form: those keep the whole text.
      if (text.length !== 24) {
        lastSecond = Number.NaN;
        lastIso = text;
        return text;
      }
      lastSecond = second;
      secondText = text.slice(0, 20);
    }
    lastIso = secondText + MILLIS[ms - second * 1000]!;
  }
  return lastIso;
}

/**
 * A moment for people: local-looking UTC to the second and how long ago (or until), as in
 * `2026-11-27 03:41:07Z (5 min ago)`. JSON output keeps the raw values; only tables use this.
 *
 * @example
 * humanTime(Date.now() - 90_000); // "2026-11-27 03:39:37Z (1 min ago)"
 */
export function humanTime(
  at: number | string | null | undefined,
  now: number = Date.now(),
): string {
  if (at === null || at === undefined || at === "") return "-";
  const ms = typeof at === "number" ? at : Date.parse(at);
  if (!Number.isFinite(ms)) return String(at);
  const stamp = `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")}Z`;
  return `${stamp} (${relative(ms - now)})`;
}

/** "just now", "5 min ago", "in 2 h", "3 d ago". */
export function relative(deltaMs: number): string {
  const abs = Math.abs(deltaMs);
  if (abs < 5_000) return "just now";
  const [amount, unit] =
    abs < 60_000
      ? [Math.floor(abs / 1000), "s"]
      : abs < 3_600_000
        ? [Math.floor(abs / 60_000), "min"]
        : abs < 172_800_000
          ? [Math.floor(abs / 3_600_000), "h"]
          : [Math.floor(abs / 86_400_000), "d"];
  return deltaMs < 0 ? `${amount} ${unit} ago` : `in ${amount} ${unit}`;
}

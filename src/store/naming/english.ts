/**
 * Just enough English for the naming rules: whether a table name's last word is plural, and the
 * singular forms a foreign-key column may be named after. Heuristic, and lenient where English
 * is ambiguous (`statuses` → `status` or `statuse`): a name passes if any reading fits.
 */

/** Plurals that do not end in -s. */
const IRREGULAR_PLURALS = new Set(["data", "media", "criteria", "people", "children", "indices"]);

/** Whether a snake_case name's last word reads as a plural. */
export function isPlural(name: string): boolean {
  const word = name.split("_").pop() ?? "";
  if (IRREGULAR_PLURALS.has(word)) return true;
  return /[a-z0-9]s$/.test(word) && !/(ss|us|is)$/.test(word);
}

/** The singular readings of a snake_case plural name (`checkpoint_blobs` → `checkpoint_blob`). */
export function singulars(name: string): string[] {
  const words = name.split("_");
  const last = words.pop() ?? "";
  const stems = new Set<string>();
  if (last.endsWith("ies")) stems.add(`${last.slice(0, -3)}y`);
  if (last.endsWith("es")) stems.add(last.slice(0, -2));
  if (last.endsWith("s")) stems.add(last.slice(0, -1));
  if (last === "children") stems.add("child");
  if (last === "people") stems.add("person");
  if (stems.size === 0) stems.add(last);
  return [...stems].map((stem) => [...words, stem].join("_"));
}

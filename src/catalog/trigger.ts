// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is every character below 0x80
const ASCII = /^[\u0000-\u007f]*$/;
const SEPARATORS = /[-_\s]+/g;

/**
 * The spec's trigger normalisation: NFD, strip diacritics, lowercase, every run of `-`, `_` or
 * whitespace becomes one space, trim. `/Déploy_now` and `/deploy-now` meet at `/deploy now`.
 *
 * @example
 * normalizeTrigger("@Backend-Lead"); // "@backend lead"
 */
export function normalizeTrigger(text: string): string {
  // ASCII has nothing to decompose and no diacritics (most triggers, many per file).
  if (ASCII.test(text)) return text.toLowerCase().replace(SEPARATORS, " ").trim();
  return text
    .normalize("NFD")
    .replace(/\p{Mn}+/gu, "")
    .toLowerCase()
    .replace(SEPARATORS, " ")
    .trim();
}

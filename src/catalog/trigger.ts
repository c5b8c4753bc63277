/**
 * The spec's trigger normalisation: NFD, strip diacritics, lowercase, every run of `-`, `_` or
 * whitespace becomes one space, trim. `/Déploy_now` and `/deploy-now` meet at `/deploy now`.
 *
 * @example
 * normalizeTrigger("@Backend-Lead"); // "@backend lead"
 */
export function normalizeTrigger(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{Mn}+/gu, "")
    .toLowerCase()
    .replace(/[-_\s]+/g, " ")
    .trim();
}

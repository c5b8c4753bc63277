/**
 * Compares two strings by Unicode code point: the order that is the same on every machine and
 * locale (unlike `localeCompare`) and Python's `str` order (unlike the default sort, which
 * compares UTF-16 units), for names people see listed and for anything hashed.
 *
 * @example
 * ["b", "B", "a"].sort(compareCodePoints); // ["B", "a", "b"]
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

// Surrogates (U+D800–U+DFFF) encode code points above U+FFFF, so they rank after U+E000–U+FFFF;
// comparing units is then comparing code points (the first differing unit decides either way).
function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

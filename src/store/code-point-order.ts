/**
 * Compares two strings by Unicode code point, the order that is the same on every machine and
 * locale (unlike `localeCompare`), for names people see listed and for anything hashed.
 *
 * @example
 * ["b", "B", "a"].sort(compareCodePoints); // ["B", "a", "b"]
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const dx = x.value.codePointAt(0) ?? 0;
    const dy = y.value.codePointAt(0) ?? 0;
    if (dx !== dy) return dx - dy;
  }
}
